//! A tiny HTTP/1.1 server on 127.0.0.1 serving a mirror as pinned URLs, for the download path.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A minimal HTTP/1.1 server on 127.0.0.1 serving `<owner>/<repo>/<commit>/<path>` from a mirror
/// laid out as `<owner>/<repo>/<path>`. `tamper` may rewrite a body before it is sent.
pub(crate) struct FileServer {
    pub base: String,
    pub requests: Arc<AtomicUsize>,
}

pub(crate) fn serve(mirror: PathBuf, tamper: fn(&str, Vec<u8>) -> Vec<u8>) -> FileServer {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(AtomicUsize::new(0));
    let counter = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
            }
            counter.fetch_add(1, Ordering::SeqCst);
            let path = request_line.split_whitespace().nth(1).unwrap_or("/");
            let parts: Vec<&str> = path.trim_start_matches('/').splitn(4, '/').collect();
            let body = (parts.len() == 4)
                .then(|| mirror.join(parts[0]).join(parts[1]).join(parts[3]))
                .and_then(|p| std::fs::read(p).ok())
                .map(|b| tamper(path, b));
            let response = match body {
                Some(b) => {
                    let mut r = format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        b.len()
                    )
                    .into_bytes();
                    r.extend(b);
                    r
                }
                None => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_vec(),
            };
            let _ = stream.write_all(&response);
        }
    });
    FileServer { base, requests }
}
