//! QR codes of sign-in links: text for the terminal (two rows per line with half blocks, so it
//! stays square in a terminal font) and SVG for the web app's "Add a device".

use qrcode::render::{svg, unicode};
use qrcode::{EcLevel, QrCode};

fn code(data: &str) -> Result<QrCode, qrcode::types::QrError> {
    QrCode::with_error_correction_level(data.as_bytes(), EcLevel::L)
}

/// The QR code as terminal text (dark modules drawn light-on-dark work on both themes because
/// the quiet zone is drawn too).
pub fn text(data: &str) -> Result<String, qrcode::types::QrError> {
    Ok(code(data)?
        .render::<unicode::Dense1x2>()
        .dark_color(unicode::Dense1x2::Light)
        .light_color(unicode::Dense1x2::Dark)
        .quiet_zone(true)
        .build())
}

/// The QR code as an SVG document.
pub fn svg(data: &str) -> Result<String, qrcode::types::QrError> {
    Ok(code(data)?
        .render::<svg::Color<'_>>()
        .min_dimensions(200, 200)
        .quiet_zone(true)
        .build())
}

#[cfg(test)]
mod tests {
    #[test]
    fn renders_a_link() {
        let url = "https://devbox:7420/?token=0123456789abcdef0123456789abcdef";
        let t = super::text(url).unwrap_or_default();
        assert!(t.lines().count() > 10);
        let s = super::svg(url).unwrap_or_default();
        assert!(s.starts_with("<?xml") && s.contains("<svg"));
    }
}
