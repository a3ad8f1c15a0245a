//! The operating system's calls the standard library does not wrap: whether a process lives, an
//! atomic exchange of two paths, opening a lock file without blocking, file identities and mount
//! points, and (for the preview) catching Ctrl-C and telling an exhausted accept apart. Each has
//! a fallback where the platform lacks the call. A file-size signal is turned into an error.

use std::fs;
use std::io;
use std::path::Path;

/// True when a process with this id exists (on Unix; elsewhere assumed alive, so nothing of a
/// running build is ever removed).
pub(crate) fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // SAFETY: signal 0 only checks for existence and permission; nothing is sent.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Exchanges two paths atomically (`renameat2` with `RENAME_EXCHANGE`).
#[cfg(target_os = "linux")]
pub fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes())?;
    let b = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both pointers are valid NUL-terminated strings for the duration of the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Exchanges two paths atomically: not available here, so always [`io::ErrorKind::Unsupported`].
#[cfg(not(target_os = "linux"))]
pub fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// True when the kernel or file system cannot exchange two paths, so two renames must do.
pub fn exchange_unsupported(e: &io::Error) -> bool {
    #[cfg(target_os = "linux")]
    if matches!(
        e.raw_os_error(),
        Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)
    ) {
        return true;
    }
    e.kind() == io::ErrorKind::Unsupported
}

/// Opens (or makes) a lock file at `path` for reading and writing, never blocking and never
/// following a link: a FIFO or a device put there would make a plain open wait forever.
pub fn open_lock_file(path: &Path) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.create(true).truncate(false).read(true).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    options.open(path)
}

/// Makes the folder `path`, which must not exist, readable only by its owner (0700 on Unix):
/// nothing can be planted in it while the build writes there.
pub fn create_private_dir(path: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(path)
}

/// Writes `bytes` into a new file at `path`: an existing file or a link there is an error
/// (`O_EXCL`, and `O_NOFOLLOW` on Unix), so nothing but the new file is ever written. The file
/// is then made readable by all (0644 on Unix), whatever the umask.
pub fn write_new_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(0o644))?;
    }
    Ok(())
}

/// Sets the mode of the folder or file at `path` (on Unix; elsewhere nothing).
pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(())
    }
}

/// How many names the file of `meta` has (hard links; 1 elsewhere than Unix).
pub fn link_count(meta: &fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.nlink()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        1
    }
}

/// Removes the folder `dir`, one of this tool's own leftovers; where a folder inside was made
/// read-only (by a user, or a tool that copied modes), it is made writable by its owner first,
/// so that a leftover never blocks later builds. Links are removed, never followed.
pub fn remove_own_tree(dir: &Path) -> io::Result<()> {
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
                if entry.file_type().is_dir() {
                    set_mode(entry.path(), 0o700)?;
                }
            }
            fs::remove_dir_all(dir)
        }
        other => other,
    }
}

/// True when the folder `dir` is a mount point: its device differs from its parent's.
pub fn is_mount_point(dir: &Path, parent: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (fs::symlink_metadata(dir), fs::metadata(parent)) {
            (Ok(d), Ok(p)) => d.dev() != p.dev(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (dir, parent);
        false
    }
}

/// The identity (device and inode) of what is at `path`, without following a link; elsewhere
/// than Unix, `(0, 0)` for a folder.
#[cfg(feature = "serve")]
pub fn file_identity(path: &Path) -> Option<(u64, u64)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        meta.is_dir().then_some((0, 0))
    }
}

/// Set by Ctrl-C (SIGINT) or SIGTERM once [`catch_interrupt`] ran.
#[cfg(feature = "serve")]
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(all(unix, feature = "serve"))]
extern "C" fn on_interrupt(_: libc::c_int) {
    INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// From now on a write past the file-size limit (`ulimit -f`) fails with `EFBIG`, which the
/// caller reports as the I/O error it is, instead of raising SIGXFSZ, whose default kills the
/// process without a word (on Unix; elsewhere there is no such signal).
pub fn ignore_file_size_signal() {
    #[cfg(unix)]
    // SAFETY: ignoring a signal installs no handler and touches no memory of ours.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// From now on, Ctrl-C and SIGTERM only set [`interrupted`] (on Unix).
#[cfg(feature = "serve")]
pub fn catch_interrupt() {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_interrupt as *const () as libc::sighandler_t,
        );
        libc::signal(
            libc::SIGTERM,
            on_interrupt as *const () as libc::sighandler_t,
        );
    }
}

/// True once Ctrl-C or SIGTERM arrived after [`catch_interrupt`].
#[cfg(feature = "serve")]
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// True for an accept error that means the process or system is out of descriptors or memory,
/// which passes as connections close.
#[cfg(feature = "serve")]
pub fn out_of_resources(e: &io::Error) -> bool {
    #[cfg(unix)]
    if matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    ) {
        return true;
    }
    e.kind() == io::ErrorKind::OutOfMemory
}
