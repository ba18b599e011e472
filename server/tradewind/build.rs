//! Embeds the built web app (`static/`) gzip-compressed: every browser takes it that way, so
//! the bytes are sent as stored (a client that does not accept gzip gets them decompressed). The
//! page shell (`index.html`, which the server edits per request) is kept as is too.

use std::io::Write;
use std::path::{Path, PathBuf};

fn main() {
    pack_relative_relocations();
    text_order();
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

/// The programs' relative relocations packed (`DT_RELR`) where the C library reads them (glibc
/// 2.36 and later, which names `GLIBC_ABI_DT_RELR`): the table the loader reads at every start
/// shrinks from ~1.7 MB (72k entries of 24 bytes, resident for the life of the process) to a few
/// kilobytes — less memory for the server, and a faster start for it and every jailed command.
fn pack_relative_relocations() {
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    if target != host || !target.ends_with("-linux-gnu") {
        return;
    }
    let arch = target.split('-').next().unwrap_or_default();
    let supported = [
        format!("/usr/lib/{arch}-linux-gnu/libc.so.6"),
        format!("/lib/{arch}-linux-gnu/libc.so.6"),
        "/usr/lib64/libc.so.6".to_string(),
        "/lib64/libc.so.6".to_string(),
    ]
    .iter()
    .filter_map(|p| std::fs::read(p).ok())
    .next()
    .is_some_and(|libc| libc.windows(17).any(|w| w == b"GLIBC_ABI_DT_RELR"));
    if supported {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Release builds gather the functions the server runs from start to idle, then in a turn, at the
/// front of its code (`text-order.ld`, written by `scripts/text-order`): the kernel keeps code
/// resident in 64 KiB windows around each touch, so scattered over 24 MiB they kept ~12 MiB of code
/// resident in an idle server; gathered, ~7.5 (3.7 of it the gathered section, the rest code the
/// list misses). The script only adds an output section before `.text` (`INSERT BEFORE`), so the
/// linker's default layout stays as it is.
fn text_order() {
    let script = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("text-order.ld");
    println!("cargo:rerun-if-changed={}", script.display());
    let target = std::env::var("TARGET").unwrap_or_default();
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    if release && target.ends_with("-linux-gnu") && script.is_file() {
        println!("cargo:rustc-link-arg-bins=-Wl,-T,{}", script.display());
    }
}
