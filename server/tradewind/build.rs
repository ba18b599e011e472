//! Embeds the built web app (`static/`) gzip-compressed: every browser takes it that way, so
//! the bytes are sent as stored (a client that does not accept gzip gets them decompressed). The
//! page shell (`index.html`, which the server edits per request) is kept as is too.

use std::io::Write;
use std::path::{Path, PathBuf};

fn main() {
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("../../static");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    files.sort();
    let mut code = String::from("pub static FILES: &[super::Asset] = &[\n");
    for (i, rel) in files.iter().enumerate() {
        let src = root.join(rel);
        println!("cargo:rerun-if-changed={}", src.display());
        let bytes = std::fs::read(&src).unwrap_or_default();
        let gz = out.join(format!("asset{i}.gz"));
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let _ = enc.write_all(&bytes);
        let compressed = enc.finish().unwrap_or_default();
        let _ = std::fs::write(&gz, &compressed);
        let keep = if rel == "index.html" {
            format!("Some(include_bytes!({:?}))", src.display().to_string())
        } else {
            "None".to_string()
        };
        code.push_str(&format!(
            "    super::Asset {{ path: {rel:?}, mime: {:?}, gzip: include_bytes!({:?}), size: {}, plain: {keep} }},\n",
            mime(rel),
            gz.display().to_string(),
            bytes.len()
        ));
    }
    code.push_str("];\n");
    let _ = std::fs::write(out.join("static_assets.rs"), code);
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(root, &p, out);
        } else if let Ok(rel) = p.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

fn mime(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "html" => "text/html",
        "js" | "mjs" => "text/javascript",
        "css" => "text/css",
        "svg" => "image/svg+xml",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "txt" => "text/plain",
        _ => "application/octet-stream",
    }
}
