//! `scenario-ratios serve`: the author's live preview. It builds the article in memory (nothing
//! is written to the output folder), serves every output file at its published path, watches the
//! project's prose, settings, manifest and facts, rebuilds on a saved change and makes the open
//! page reload itself. A failed rebuild keeps the server and the last good build, and shows the
//! error at the top of the page until a fix builds.
//!
//! The reload script and the Content-Security-Policy that allows it exist only in served pages;
//! the published article has neither. Built only with the `serve` feature (HTTP: hyper on a
//! one-thread tokio runtime; file events: notify).
//!
//! The server ([`http`]) is bounded whatever its clients do: a request's line and headers may hold
//! at most [`MAX_HEAD_BYTES`] and must arrive within [`HEAD_TIMEOUT`]; a connection lives at most
//! [`CONNECTION_TIMEOUT`]; at most [`MAX_CONNECTIONS`] are served at once (more are told 503 and
//! closed); when the process runs out of file descriptors it backs off and keeps accepting; and
//! the watcher ([`watcher`]) re-arms itself when a watched folder is replaced as a folder. Between
//! builds the preview keeps what a prose edit does not change ([`cache`]).
pub mod cache;
pub mod http;
pub mod watcher;

use std::collections::BTreeMap;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Instant;

use bytes::Bytes;

use crate::pipeline::{self, BuildOptions, Timings};
use cache::Cache;
pub use http::{served_page, CONNECTION_TIMEOUT, HEAD_TIMEOUT, MAX_CONNECTIONS, MAX_HEAD_BYTES};
use ratios_base::error::{Error, Result};
use ratios_model::project::Project;

/// What is being served: the files of the last good build, the last error, and a counter of
/// builds.
#[derive(Default)]
pub(crate) struct Served {
    pub(crate) files: Option<BTreeMap<String, Bytes>>,
    pub(crate) error: Option<String>,
    pub(crate) version: u64,
}

/// The served state and the build counter that reload polls wait on.
pub(crate) struct State {
    pub(crate) served: Mutex<Served>,
    pub(crate) version: tokio::sync::watch::Sender<u64>,
}

/// Builds once, then serves on `bind:port` until Ctrl-C.
pub fn run(opts: &BuildOptions, bind: &str, port: u16) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| Error::Serve {
            context: "serve".into(),
            message: format!("cannot start the server: {e}"),
        })?;
    runtime.block_on(serve(opts, bind, port))
}

async fn serve(opts: &BuildOptions, bind: &str, port: u16) -> Result<()> {
    let listener = http::listen(bind, port).map_err(|e| Error::Serve {
        context: format!("{bind}:{port}"),
        message: format!("cannot listen: {e}"),
    })?;
    let addr = listener
        .local_addr()
        .map_or(format!("{bind}:{port}"), |a| a.to_string());
    let (version, _) = tokio::sync::watch::channel(0);
    let state = Arc::new(State {
        served: Mutex::new(Served::default()),
        version,
    });
    let mut reuse = Cache::default();
    rebuild(opts, &state, &mut reuse);

    let (tx, rx) = mpsc::channel();
    let watcher = notify::recommended_watcher(tx).map_err(|e| Error::Serve {
        context: "serve".into(),
        message: format!("cannot watch files: {e}"),
    })?;
    let mut folders = watcher::WatchedFolders::new(opts, watcher)?;
    {
        let opts = opts.clone();
        let state = state.clone();
        std::thread::spawn(move || {
            watcher::watch_loop(&opts, &state, &rx, &mut folders, &mut reuse)
        });
    }

    ratios_base::sys::catch_interrupt();
    if !bind.starts_with("127.") && bind != "localhost" && bind != "::1" {
        ratios_base::note!("warning: listening on {bind}: other machines can reach this preview");
    }
    crate::out!("serving http://{addr}/ (Ctrl-C stops)").map_err(Error::Stdout)?;
    crate::out!(
        "watching {} under {}",
        Project::WATCHED.join(", "),
        ratios_base::text::path(&opts.root)
    )
    .map_err(Error::Stdout)?;
    http::accept_loop(&listener, &state).await;
    crate::out!("stopped").map_err(Error::Stdout)
}

/// Builds in memory and publishes the result (or the error) to the server.
fn rebuild(opts: &BuildOptions, state: &State, reuse: &mut Cache) {
    let started = Instant::now();
    let result = pipeline::build_in_memory(opts, &mut Timings::new(), reuse);
    let mut served = state.served.lock().unwrap_or_else(|p| p.into_inner());
    match result {
        Ok(built) => {
            ratios_base::note!("built in {:.0} ms", started.elapsed().as_secs_f64() * 1e3);
            // Each file once, shared by every answer that sends it.
            served.files = Some(
                built
                    .dist
                    .files()
                    .map(|(p, b)| (p.to_string(), Bytes::copy_from_slice(b)))
                    .collect(),
            );
            served.error = None;
        }
        Err(e) => {
            let line = ratios_base::text::escaped(&e.to_string());
            ratios_base::note!("error: {line}");
            served.error = Some(line);
        }
    }
    served.version += 1;
    state.version.send_replace(served.version);
}
