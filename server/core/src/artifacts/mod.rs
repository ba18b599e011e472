//! Artifact folders as downloadable archives: tar (ustar) and zip (stored), written by hand so no
//! extra dependency is needed. Artifacts are small (plans), so they are built in memory.

use std::path::Path;

/// CRC-32 (IEEE), for zip.
fn crc32(data: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (i, slot) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *slot = c;
    }
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc = table[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8);
    }
    crc ^ 0xFFFF_FFFF
}

/// Read `(relative path, bytes)` for every regular file under `dir` (no links followed).
pub fn collect(dir: &Path) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            let t = e.file_type()?;
            if t.is_dir() {
                stack.push(e.path());
            } else if t.is_file() {
                let rel = e
                    .path()
                    .strip_prefix(dir)
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_default();
                out.push((rel, std::fs::read(e.path())?));
            }
        }
    }
    out.sort();
    Ok(out)
}

pub fn tar(prefix: &str, files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data) in files {
        let full = format!("{prefix}/{name}");
        let mut h = [0u8; 512];
        let nb = full.as_bytes();
        let n = nb.len().min(100);
        h[..n].copy_from_slice(&nb[..n]);
        let octal = |v: u64, width: usize| format!("{v:0w$o}\0", w = width - 1);
        h[100..108].copy_from_slice(octal(0o644, 8).as_bytes());
        h[108..116].copy_from_slice(octal(0, 8).as_bytes());
        h[116..124].copy_from_slice(octal(0, 8).as_bytes());
        h[124..136].copy_from_slice(octal(data.len() as u64, 12).as_bytes());
        h[136..148].copy_from_slice(octal(0, 12).as_bytes());
        h[156] = b'0';
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
        h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        out.extend_from_slice(&h);
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.resize(out.len() + 1024, 0);
    out
}

pub fn zip(prefix: &str, files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let full = format!("{prefix}/{name}");
        let crc = crc32(data);
        let offset = out.len() as u32;
        let size = data.len() as u32;
        // Local file header.
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&20u16.to_le_bytes()); // version needed
        out.extend_from_slice(&0x0800u16.to_le_bytes()); // UTF-8 names
        out.extend_from_slice(&0u16.to_le_bytes()); // stored
        out.extend_from_slice(&0u32.to_le_bytes()); // time, date
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&(full.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(full.as_bytes());
        out.extend_from_slice(data);
        // Central directory entry.
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&0x0800u16.to_le_bytes());
        central.extend_from_slice(&0u16.to_le_bytes());
        central.extend_from_slice(&0u32.to_le_bytes());
        central.extend_from_slice(&crc.to_le_bytes());
        central.extend_from_slice(&size.to_le_bytes());
        central.extend_from_slice(&size.to_le_bytes());
        central.extend_from_slice(&(full.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0u8; 8]); // extra len, comment len, disk start, internal attrs
        central.extend_from_slice(&0o100644u32.wrapping_shl(16).to_le_bytes()); // external attrs
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(full.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0u8; 4]);
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_known_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn archives_are_readable_by_system_tools() {
        let files = vec![
            ("plan.md".to_string(), b"# Plan\n".to_vec()),
            (
                "diagrams/a.mmd".to_string(),
                b"flowchart TD\n A-->B\n".to_vec(),
            ),
        ];
        let dir = std::env::temp_dir().join(format!("tw-arch-{}", crate::util::new_id()));
        std::fs::create_dir_all(&dir).ok();
        std::fs::write(dir.join("a.tar"), tar("plan-r1", &files)).ok();
        std::fs::write(dir.join("a.zip"), zip("plan-r1", &files)).ok();
        let t = std::process::Command::new("tar")
            .arg("-tf")
            .arg(dir.join("a.tar"))
            .output();
        if let Ok(o) = t {
            let list = String::from_utf8_lossy(&o.stdout);
            assert!(
                list.contains("plan-r1/plan.md") && list.contains("plan-r1/diagrams/a.mmd"),
                "{list}"
            );
        }
        let z = std::process::Command::new("python3").args(["-c", "import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(z.read('plan-r1/plan.md').decode())"]).arg(dir.join("a.zip")).output();
        if let Ok(o) = z {
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            assert_eq!(String::from_utf8_lossy(&o.stdout), "# Plan\n\n");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
