//! A real browser for the page tests: Debian's `chromium`, headless, driven over the DevTools
//! protocol on a pipe (`--remote-debugging-pipe`: NUL-separated JSON on fds 3 and 4, given to it
//! through two FIFOs). The protocol reports every network request (even one a policy blocks),
//! every console call, exception and log entry (a policy violation is one), and evaluates
//! expressions in the loaded page even when its policy forbids scripts.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// However a page load goes, it is over after this long.
const PATIENCE: Duration = Duration::from_secs(60);

/// The browser, or a failed test naming the package to install. Never a skip.
pub fn chromium() -> PathBuf {
    let name = std::env::var("MEND_CHROMIUM").unwrap_or_else(|_| "chromium".to_owned());
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(&name))
            .find(|path| path.is_file())
    });
    found.unwrap_or_else(|| {
        panic!("no `{name}` on PATH: the page tests need a real browser — run `apt-get install chromium` (.ci/run does)")
    })
}

fn headless_flags(profile: &Path) -> Vec<String> {
    [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ]
    .iter()
    .map(|flag| flag.to_string())
    .chain([format!("--user-data-dir={}", profile.display())])
    .collect()
}

/// What loading a page did, and what the page held once loaded.
#[derive(Debug)]
pub struct Loaded {
    /// Every URL the page asked for, the page itself included.
    pub requests: Vec<String>,
    /// Console calls, exceptions and log entries (policy violations among them).
    pub problems: Vec<String>,
    /// The value of the inspection expression, evaluated in the loaded page.
    pub inspected: Value,
}

/// Loads `page` in a fresh headless chromium, waits for its load event, then evaluates
/// `expression` (which must return a JSON string) in it.
pub fn load(page: &Path, expression: &str) -> Loaded {
    let work = tempfile::tempdir().unwrap();
    let to_browser = work.path().join("to-browser");
    let from_browser = work.path().join("from-browser");
    for fifo in [&to_browser, &from_browser] {
        let made = Command::new("mkfifo").arg(fifo).status().unwrap();
        assert!(made.success(), "mkfifo {}", fifo.display());
    }
    let child = Command::new("sh")
        .arg("-c")
        .arg(r#"exec "$0" "$@" 3<"$TO_BROWSER" 4>"$FROM_BROWSER""#)
        .arg(chromium())
        .args(headless_flags(&work.path().join("profile")))
        .arg("--remote-debugging-pipe")
        .env("TO_BROWSER", &to_browser)
        .env("FROM_BROWSER", &from_browser)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The shell opens the FIFOs in this order before it becomes chromium.
    let writer = OpenOptions::new().write(true).open(&to_browser).unwrap();
    let reader = File::open(&from_browser).unwrap();
    let mut session = Devtools::start(child, writer, reader);
    let loaded = session.inspect(page, expression);
    session.close();
    loaded
}

/// Writes a PNG of `page` at the given window size.
pub fn screenshot(page: &Path, png: &Path, width: u32, height: u32) {
    let profile = tempfile::tempdir().unwrap();
    let status = Command::new(chromium())
        .args(headless_flags(profile.path()))
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "chromium --screenshot failed: {status}");
}

struct Devtools {
    child: Child,
    writer: File,
    messages: mpsc::Receiver<Value>,
    next_id: u64,
    /// Events that arrived while waiting for a reply.
    events: Vec<Value>,
}

impl Devtools {
    fn start(child: Child, writer: File, mut reader: File) -> Devtools {
        let (sender, messages) = mpsc::channel();
        thread::spawn(move || {
            let mut pending = Vec::new();
            let mut chunk = [0u8; 65536];
            loop {
                let read = match reader.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(read) => read,
                };
                pending.extend_from_slice(&chunk[..read]);
                while let Some(end) = pending.iter().position(|byte| *byte == 0) {
                    let message: Vec<u8> = pending.drain(..=end).collect();
                    let Ok(value) = serde_json::from_slice(&message[..end]) else {
                        continue;
                    };
                    if sender.send(value).is_err() {
                        return;
                    }
                }
            }
        });
        Devtools {
            child,
            writer,
            messages,
            next_id: 0,
            events: Vec::new(),
        }
    }

    fn next_message(&mut self, until: Instant) -> Value {
        let left = until.saturating_duration_since(Instant::now());
        self.messages
            .recv_timeout(left)
            .unwrap_or_else(|err| panic!("chromium stopped answering ({err})"))
    }

    fn call(&mut self, method: &str, params: Value, session: Option<&str>) -> Value {
        self.next_id += 1;
        let mut message = json!({"id": self.next_id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = message.to_string().into_bytes();
        bytes.push(0);
        self.writer.write_all(&bytes).unwrap();
        let until = Instant::now() + PATIENCE;
        loop {
            let reply = self.next_message(until);
            if reply["id"] == json!(self.next_id) {
                assert!(reply.get("error").is_none(), "{method} failed: {reply}");
                return reply["result"].clone();
            }
            self.events.push(reply);
        }
    }

    fn inspect(&mut self, page: &Path, expression: &str) -> Loaded {
        let target = self.call("Target.createTarget", json!({"url": "about:blank"}), None);
        let attached = self.call(
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
            None,
        );
        let session = attached["sessionId"].as_str().unwrap().to_owned();
        for domain in ["Log", "Runtime", "Network", "Page"] {
            self.call(&format!("{domain}.enable"), json!({}), Some(&session));
        }
        self.events.clear();
        let url = format!("file://{}", page.display());
        self.call("Page.navigate", json!({"url": url}), Some(&session));
        let until = Instant::now() + PATIENCE;
        while !self
            .events
            .iter()
            .any(|event| event["method"] == "Page.loadEventFired")
        {
            let event = self.next_message(until);
            self.events.push(event);
        }
        let evaluated = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
            Some(&session),
        );
        let inspected = evaluated["result"]["value"]
            .as_str()
            .map(|text| serde_json::from_str(text).unwrap())
            .unwrap_or_else(|| panic!("the inspection returned no JSON string: {evaluated}"));
        let mut requests = Vec::new();
        let mut problems = Vec::new();
        for event in &self.events {
            let params = &event["params"];
            match event["method"].as_str().unwrap_or("") {
                "Network.requestWillBeSent" => {
                    requests.push(params["request"]["url"].as_str().unwrap_or("").to_owned())
                }
                "Log.entryAdded" => problems.push(format!("log: {}", params["entry"]["text"])),
                "Runtime.consoleAPICalled" => {
                    problems.push(format!("console.{}: {}", params["type"], params["args"]))
                }
                "Runtime.exceptionThrown" => {
                    problems.push(format!("exception: {}", params["exceptionDetails"]))
                }
                _ => {}
            }
        }
        Loaded {
            requests,
            problems,
            inspected,
        }
    }

    fn close(mut self) {
        self.next_id += 1;
        let message = json!({"id": self.next_id, "method": "Browser.close", "params": {}});
        let mut bytes = message.to_string().into_bytes();
        bytes.push(0);
        let _ = self.writer.write_all(&bytes);
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The markup every page mend writes is made of: a document of sections, headings, paragraphs
/// and tables, with SVG charts.
const ELEMENTS: [&str; 21] = [
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "section", "div",
    "table", "tbody", "tr", "th", "td", "svg", "text", "line", "rect",
];
const ATTRIBUTES: [&str; 17] = [
    "charset",
    "http-equiv",
    "content",
    "name",
    "lang",
    "class",
    "role",
    "width",
    "height",
    "viewBox",
    "x",
    "y",
    "x1",
    "x2",
    "y1",
    "y2",
    "tabindex",
];

/// The names a loaded page showed under `kind`: "elements" or "attributes", as the inspection
/// expression lists them.
pub fn names(loaded: &Loaded, kind: &str) -> BTreeSet<String> {
    loaded.inspected[kind]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap().to_owned())
        .collect()
}

/// `page` loaded nothing but itself, logged nothing, and holds only the markup of every page of
/// mend's and the `elements` and `attributes` of its own kind of page.
pub fn assert_inert(loaded: &Loaded, page: &Path, elements: &[&str], attributes: &[&str]) {
    assert_eq!(loaded.requests, vec![format!("file://{}", page.display())]);
    assert_eq!(loaded.problems, Vec::<String>::new());
    for (kind, every_page, this_page) in [
        ("elements", &ELEMENTS[..], elements),
        ("attributes", &ATTRIBUTES[..], attributes),
    ] {
        let allowed: BTreeSet<String> = every_page
            .iter()
            .chain(this_page)
            .map(|name| name.to_string())
            .collect();
        let unexpected: Vec<String> = names(loaded, kind).difference(&allowed).cloned().collect();
        assert_eq!(unexpected, Vec::<String>::new(), "{kind} mend never writes");
    }
}
