//! The system-call filter every confined command runs under: calls that reach other processes'
//! memory, the kernel's key store, kernel modules, mounts, or the terminal's input queue fail with
//! `EPERM`. Everything else passes — files, network and signals are the jail's and Landlock's to
//! decide; the filter only removes what no build or test needs and an escape would.
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

/// The x32 ABI's flag on x86_64: the same calls under other numbers.
#[cfg(target_arch = "x86_64")]
const X32: libc::c_long = 0x4000_0000;

fn arch() -> Result<TargetArch, String> {
    TargetArch::try_from(std::env::consts::ARCH).map_err(|e| format!("{e:?}"))
}

/// The filter, compiled.
pub fn program() -> Result<BpfProgram, String> {
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
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch()?,
    )
    .map_err(|e| format!("{e:?}"))?;
    BpfProgram::try_from(filter).map_err(|e| format!("{e:?}"))
}

/// Install the filter on the calling thread (its children inherit it).
pub fn apply() -> Result<(), String> {
    let prog = program()?;
    seccompiler::apply_filter(&prog).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    /// The filter compiles for this machine (it is applied only in the helper's own process).
    #[test]
    fn the_filter_compiles() {
        let p = super::program();
        assert!(p.as_ref().is_ok_and(|p| !p.is_empty()), "{p:?}");
    }
}
