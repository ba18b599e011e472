//! `tradewind-confine`: the small program the jail starts every command through (Landlock, the
//! system-call filter, then exec). Built and installed beside `tradewind`; see `tradewind_confine`.
fn main() -> std::process::ExitCode {
    tradewind_confine::main_with(std::env::args_os().skip(1))
}
