//! The system-call filter every confined command runs under: calls that reach other processes'
//! memory, the kernel's key store, kernel modules, mounts, or the terminal's input queue fail with
//! `EPERM`, and so does every call that would give a file or folder set-user-ID or set-group-ID
//! (`chmod` and its kin, and `open`/`creat`/`mkdir`/`mknod` asking for those bits): a server
//! running as root sees the jail's files as root's, and a set-uid copy of a shell left in the
//! workspace would be a root shell for any local account. `openat2`, whose mode the filter
//! cannot read, answers `ENOSYS`, so callers use `openat`. Everything else passes — files,
//! network and signals are the jail's and Landlock's to decide; the filter only removes what no
//! build or test needs and an escape would.
use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Denied outright, whatever the arguments.
const DENIED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsmount,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_reboot,
    libc::SYS_acct,
    libc::SYS_quotactl,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_setns,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_pidfd_getfd,
];

/// `ioctl` requests that push input into a terminal (`TIOCSTI`) or drive the console
/// (`TIOCLINUX`): a command could type into the user's shell.
const DENIED_IOCTLS: &[u64] = &[0x5412, 0x541C];

/// `S_ISUID` and `S_ISGID`.
const PRIVILEGE_BITS: [u64; 2] = [0o4000, 0o2000];

/// `fchmodat2` (Linux 6.6), the same number on every architecture.
const SYS_FCHMODAT2: libc::c_long = 452;

/// Calls that set a file's mode, and the argument holding it.
fn mode_calls() -> Vec<(libc::c_long, u8)> {
    let mut v = vec![
        (libc::SYS_fchmod, 1),
        (libc::SYS_fchmodat, 2),
        (SYS_FCHMODAT2, 2),
        (libc::SYS_openat, 3),
        (libc::SYS_mkdirat, 2),
        (libc::SYS_mknodat, 2),
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([
        (libc::SYS_chmod, 1),
        (libc::SYS_open, 2),
        (libc::SYS_creat, 1),
        (libc::SYS_mkdir, 1),
        (libc::SYS_mknod, 1),
    ]);
    v
}

/// The rules refusing `call` when its `arg` asks for set-user-ID or set-group-ID.
fn privilege_rules(arg: u8) -> Result<Vec<SeccompRule>, String> {
    PRIVILEGE_BITS
        .iter()
        .map(|bit| {
            SeccompCondition::new(
                arg,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::MaskedEq(*bit),
                *bit,
            )
            .and_then(|c| SeccompRule::new(vec![c]))
            .map_err(|e| format!("{e:?}"))
        })
        .collect()
}

/// The x32 ABI's flag on x86_64: the same calls under other numbers.
#[cfg(target_arch = "x86_64")]
const X32: libc::c_long = 0x4000_0000;

fn arch() -> Result<TargetArch, String> {
    TargetArch::try_from(std::env::consts::ARCH).map_err(|e| format!("{e:?}"))
}

/// The filter, compiled (`unix_sockets_denied`: `socket(AF_UNIX, …)` fails too).
pub fn program(unix_sockets_denied: bool) -> Result<BpfProgram, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for nr in DENIED {
        rules.insert(*nr, Vec::new());
        #[cfg(target_arch = "x86_64")]
        rules.insert(*nr | X32, Vec::new());
    }
    let ioctl: Vec<SeccompRule> = DENIED_IOCTLS
        .iter()
        .map(|req| {
            SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, *req)
                .and_then(|c| SeccompRule::new(vec![c]))
                .map_err(|e| format!("{e:?}"))
        })
        .collect::<Result<_, _>>()?;
    rules.insert(libc::SYS_ioctl, ioctl.clone());
    // x32 has calls of its own numbers for these (512 and up).
    #[cfg(target_arch = "x86_64")]
    {
        for nr in [521, 539, 540] {
            rules.insert(nr | X32, Vec::new());
        }
        rules.insert(514 | X32, ioctl);
    }
    if unix_sockets_denied {
        let unix = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            libc::AF_UNIX as u64,
        )
        .and_then(|c| SeccompRule::new(vec![c]))
        .map_err(|e| format!("{e:?}"))?;
        rules.insert(libc::SYS_socket, vec![unix.clone()]);
        #[cfg(target_arch = "x86_64")]
        rules.insert(libc::SYS_socket | X32, vec![unix]);
    }
    for (nr, arg) in mode_calls() {
        rules.insert(nr, privilege_rules(arg)?);
        #[cfg(target_arch = "x86_64")]
        rules.insert(nr | X32, privilege_rules(arg)?);
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch()?,
    )
    .map_err(|e| format!("{e:?}"))?;
    BpfProgram::try_from(filter).map_err(|e| format!("{e:?}"))
}

/// The second filter: `openat2` answers `ENOSYS` (its mode sits in a structure the filter
/// cannot read), which every caller of it handles by using `openat`.
pub fn openat2_program() -> Result<BpfProgram, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_openat2, Vec::new());
    #[cfg(target_arch = "x86_64")]
    rules.insert(libc::SYS_openat2 | X32, Vec::new());
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch()?,
    )
    .map_err(|e| format!("{e:?}"))?;
    BpfProgram::try_from(filter).map_err(|e| format!("{e:?}"))
}

/// Install the filters on the calling thread (its children inherit them).
pub fn apply(unix_sockets_denied: bool) -> Result<(), String> {
    let prog = program(unix_sockets_denied)?;
    seccompiler::apply_filter(&prog).map_err(|e| e.to_string())?;
    let prog = openat2_program()?;
    seccompiler::apply_filter(&prog).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    /// The filter compiles for this machine (it is applied only in the helper's own process).
    #[test]
    fn the_filter_compiles() {
        for unix in [false, true] {
            let p = super::program(unix);
            assert!(p.as_ref().is_ok_and(|p| !p.is_empty()), "{p:?}");
        }
        let p = super::openat2_program();
        assert!(p.as_ref().is_ok_and(|p| !p.is_empty()), "{p:?}");
    }
}
