//! The preview's watcher: the project's prose, settings, manifest and sources, each folder armed
//! again when it is replaced as a folder; a burst of saved edits makes one rebuild.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use super::cache::Cache;
use super::{rebuild, State};
use crate::pipeline::BuildOptions;
use ratios_base::error::{Error, Result};
use ratios_base::sys::file_identity;
use ratios_model::project::Project;

/// How long the watcher waits for a burst of file events to settle before rebuilding.
const DEBOUNCE: Duration = Duration::from_millis(40);
/// The longest a burst of events delays a rebuild: saves every 30 ms still rebuild at least this
/// often (plus the build's own time).
const MAX_SETTLE: Duration = Duration::from_millis(500);
/// How often the watcher checks that each watched folder is still the one it watches.
const REARM_CHECK: Duration = Duration::from_millis(500);
/// The folders the watcher watches, each with the identity (device and inode) it had when it was
/// armed: a folder replaced as a folder (`rm -rf content; cp -r backup content`, a branch
/// switch) is a new one, which the watcher must be armed on again.
pub(super) struct WatchedFolders {
    watcher: notify::RecommendedWatcher,
    /// The paths whose events count (the manifest is a file, watched through its folder).
    paths: Vec<PathBuf>,
    folders: Vec<(PathBuf, Option<(u64, u64)>)>,
}

impl WatchedFolders {
    pub(super) fn new(
        opts: &BuildOptions,
        mut watcher: notify::RecommendedWatcher,
    ) -> Result<Self> {
        let paths: Vec<PathBuf> = Project::WATCHED.iter().map(|p| opts.root.join(p)).collect();
        let mut folders = Vec::new();
        for path in &paths {
            let folder = if path.is_file() {
                path.parent().unwrap_or(path).to_path_buf()
            } else {
                path.clone()
            };
            watcher
                .watch(&folder, RecursiveMode::Recursive)
                .map_err(|e| Error::Serve {
                    context: ratios_base::text::path(&folder),
                    message: format!("cannot watch: {e}"),
                })?;
            let id = file_identity(&folder);
            folders.push((folder, id));
        }
        // The root itself, not its subfolders: a watched folder made anew shows here first.
        let _ = watcher.watch(&opts.root, RecursiveMode::NonRecursive);
        Ok(WatchedFolders {
            watcher,
            paths,
            folders,
        })
    }

    /// Arms the watcher again on every watched folder that is not the one it was armed on (its
    /// device and inode changed, or it came or went), and on every folder in `replaced`, which
    /// the events showed made anew (a new folder may get the old one's inode number); true when
    /// one was.
    fn rearm(&mut self, replaced: &[PathBuf]) -> bool {
        let mut changed = false;
        for (folder, armed) in &mut self.folders {
            let now = file_identity(folder);
            if now == *armed && !replaced.contains(folder) {
                continue;
            }
            changed = true;
            let _ = self.watcher.unwatch(folder);
            if now.is_some()
                && self
                    .watcher
                    .watch(folder, RecursiveMode::Recursive)
                    .is_err()
            {
                // Not armed: try again at the next check.
                *armed = None;
                continue;
            }
            *armed = now;
        }
        changed
    }

    /// Whether `event` concerns a watched path (its reading aside), and which watched folders it
    /// shows made or removed as a whole.
    fn classify(&self, event: &notify::Event, replaced: &mut Vec<PathBuf>) -> bool {
        if matches!(event.kind, notify::EventKind::Access(_)) {
            return false;
        }
        if matches!(
            event.kind,
            notify::EventKind::Create(_) | notify::EventKind::Remove(_)
        ) {
            for (folder, _) in &self.folders {
                if event.paths.iter().any(|p| p == folder) && !replaced.contains(folder) {
                    replaced.push(folder.clone());
                }
            }
        }
        // A file the bundle never carries (an editor's swap file, a backup) changes nothing
        // the build reads: it neither triggers nor delays a rebuild.
        let scratch = |p: &Path| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(ratios_base::layout::is_scratch)
        };
        event
            .paths
            .iter()
            .any(|p| !scratch(p) && self.paths.iter().any(|w| p.starts_with(w)))
    }
}

/// Rebuilds after each burst of file events under the watched paths, and after a watched folder
/// was replaced (the watcher armed on it again).
pub(super) fn watch_loop(
    opts: &BuildOptions,
    state: &State,
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
    folders: &mut WatchedFolders,
    reuse: &mut Cache,
) {
    loop {
        let mut replaced = Vec::new();
        let relevant = match rx.recv_timeout(REARM_CHECK) {
            Ok(first) => {
                let mut relevant = first.is_ok_and(|e| folders.classify(&e, &mut replaced));
                // Editors save in several steps: wait until the relevant events stop for
                // DEBOUNCE, but never longer than MAX_SETTLE after the first, so that saves
                // every few milliseconds still rebuild.
                let started = Instant::now();
                let mut settled = started + DEBOUNCE;
                loop {
                    let deadline = settled.min(started + MAX_SETTLE);
                    let Some(wait) = deadline.checked_duration_since(Instant::now()) else {
                        break;
                    };
                    match rx.recv_timeout(wait) {
                        Ok(next) => {
                            if next.is_ok_and(|e| folders.classify(&e, &mut replaced)) {
                                relevant = true;
                                settled = Instant::now() + DEBOUNCE;
                            }
                        }
                        Err(mpsc::RecvTimeoutError::Timeout) => break,
                        Err(mpsc::RecvTimeoutError::Disconnected) => return,
                    }
                }
                relevant
            }
            Err(mpsc::RecvTimeoutError::Timeout) => false,
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        };
        let rearmed = folders.rearm(&replaced);
        if relevant || rearmed {
            rebuild(opts, state, reuse);
        }
    }
}
