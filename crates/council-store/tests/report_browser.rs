//! The report page in a real browser: Debian's Chromium, headless, opens the written
//! `index.html` from disk and dumps the DOM its script built. The numbers are read from
//! the data attributes of the drawn marks, not from pixels.
//!
//! Chromium is `COUNCIL_CHROMIUM`, else `/usr/bin/chromium`, installed with apt when
//! missing and running as root; otherwise each test prints a `SKIP:` line and passes.

#![allow(clippy::unwrap_used)] // a test: a panic is its failure, with the message
#![allow(clippy::string_slice)] // test code: a panic there is a failing test

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

mod objects;
mod support;

use council_store::query::Filter;
use council_store::report::{
    AgentRow, Bucket, FailureRow, GateRow, PassRatePoint, PrRow, ReportData, RollbackRow,
    TimeToMerge, TimelineRow, Totals, render_html,
};

const DEBIAN_CHROMIUM: &str = "/usr/bin/chromium";
const BROWSER_TIMEOUT: Duration = Duration::from_secs(60);
const HOSTILE: &str = "</script><img src=x onerror=alert(1)>";
const HOSTILE_RULE: &str = "check:\"><svg onload=alert(2)>";

/// Written to the process's stderr directly: the test harness captures `eprintln!` of a
/// passing test, and a skip or a figure should be seen.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn chromium() -> Option<PathBuf> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND.get_or_init(find_or_install).clone()
}

fn find_or_install() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("COUNCIL_CHROMIUM") {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "COUNCIL_CHROMIUM={} is not a file",
            path.display()
        );
        return Some(path);
    }
    let debian = Path::new(DEBIAN_CHROMIUM);
    if debian.is_file() {
        return Some(debian.into());
    }
    if !is_root() {
        say("SKIP: no Chromium (set COUNCIL_CHROMIUM, or run as root to apt-get install it)");
        return None;
    }
    // nextest runs each test in its own process: one installs while the others wait on
    // the lock, then find the browser there.
    let lock = File::create(std::env::temp_dir().join("council-chromium-install.lock")).ok()?;
    lock.lock().ok()?;
    if !debian.is_file() {
        install_chromium();
    }
    if debian.is_file() {
        Some(debian.into())
    } else {
        say("SKIP: apt-get could not install chromium");
        None
    }
}

fn is_root() -> bool {
    fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .any(|line| line.starts_with("Uid:") && line.split_whitespace().nth(1) == Some("0"))
    })
}

fn install_chromium() {
    let started = Instant::now();
    let install = ["install", "-y", "--no-install-recommends", "chromium"];
    // A fresh machine's package lists may be missing or stale: update only when needed.
    let done = apt(&install) || (apt(&["update"]) && apt(&install));
    say(&format!(
        "chromium: apt-get {} in {:.1} s",
        if done { "installed it" } else { "failed" },
        started.elapsed().as_secs_f64()
    ));
}

fn apt(args: &[&str]) -> bool {
    let output = Command::new("apt-get")
        .args(["-q", "-o", "DPkg::Lock::Timeout=300"])
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(Stdio::null())
        .output();
    match output {
        Ok(out) if out.status.success() => true,
        Ok(out) => {
            say(&String::from_utf8_lossy(&out.stderr));
            false
        }
        Err(error) => {
            say(&format!("apt-get: {error}"));
            false
        }
    }
}

/// What Chromium made of a page.
struct Dump {
    dom: String,
    /// `CONSOLE` lines of Chromium's log: every `console.*` call, uncaught exception,
    /// unhandled rejection and blocked load. Chromium logs them all at INFO, whatever
    /// their level, and the page logs nothing on purpose, so any line is a failure.
    console: Vec<String>,
    elapsed: Duration,
}

fn open_in_chromium(browser: &Path, page: &str) -> Dump {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index.html");
    fs::write(&index, page).unwrap();
    let (out_path, err_path) = (dir.path().join("dom.html"), dir.path().join("stderr.txt"));
    let started = Instant::now();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=10000",
            "--dump-dom",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg(format!("file://{}", index.display()))
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).unwrap())
        .stderr(File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium ran over {BROWSER_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = started.elapsed();
    let stderr = fs::read_to_string(&err_path).unwrap();
    assert!(status.success(), "chromium: {status}\n{stderr}");
    Dump {
        dom: fs::read_to_string(&out_path).unwrap(),
        console: stderr
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(String::from)
            .collect(),
        elapsed,
    }
}

/// A start tag of the dumped DOM.
#[derive(Debug)]
struct Tag {
    name: String,
    attrs: Vec<(String, String)>,
}

impl Tag {
    fn get(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Every start tag outside scripts and styles, whose text is not markup. Chromium writes
/// each attribute as `name="value"` with `&`, `"`, `<` and `>` escaped.
fn tags(dom: &str) -> Vec<Tag> {
    let markup = without_raw_text(dom);
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(offset) = markup[at..].find('<') {
        at += offset + 1;
        if markup[at..].starts_with(|c: char| c.is_ascii_alphabetic()) {
            let (tag, end) = parse_tag(&markup[at..]);
            out.push(tag);
            at += end;
        }
    }
    out
}

fn parse_tag(text: &str) -> (Tag, usize) {
    let name_end = text
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .unwrap();
    let mut tag = Tag {
        name: text[..name_end].to_ascii_lowercase(),
        attrs: Vec::new(),
    };
    let mut at = name_end;
    loop {
        at += text[at..].len() - text[at..].trim_start().len();
        let rest = &text[at..];
        if rest.starts_with('>') || rest.starts_with("/>") {
            return (tag, at + rest.find('>').unwrap() + 1);
        }
        let end = rest
            .find(|c: char| c == '=' || c.is_whitespace() || c == '>')
            .unwrap()
            .max(1);
        let name = rest[..end].to_string();
        at += end;
        let value = match text[at..].strip_prefix("=\"") {
            Some(quoted) => {
                let close = quoted.find('"').unwrap();
                at += 2 + close + 1;
                unescape(&quoted[..close])
            }
            None => String::new(),
        };
        tag.attrs.push((name, value));
    }
}

fn without_raw_text(dom: &str) -> String {
    let mut out = String::new();
    let mut rest = dom;
    while let Some(start) = ["<script", "<style"]
        .iter()
        .filter_map(|t| rest.find(t))
        .min()
    {
        out.push_str(&rest[..start]);
        let close = if rest[start..].starts_with("<script") {
            "</script>"
        } else {
            "</style>"
        };
        let end = start + rest[start..].find(close).unwrap() + close.len();
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// The one tag whose attributes have these values.
fn find<'a>(tags: &'a [Tag], wanted: &[(&str, &str)]) -> &'a Tag {
    let hits: Vec<&Tag> = tags
        .iter()
        .filter(|t| wanted.iter().all(|(n, v)| t.get(n) == Some(v)))
        .collect();
    assert_eq!(hits.len(), 1, "tags with {wanted:?}: {hits:?}");
    hits[0]
}

/// The text of `#council-errors`, where the page writes every error it sees.
fn page_errors(dom: &str) -> String {
    let open = dom
        .find("id=\"council-errors\"")
        .expect("the page has #council-errors");
    let start = open + dom[open..].find('>').unwrap() + 1;
    let end = start + dom[start..].find("</pre>").unwrap();
    unescape(&dom[start..end])
}

fn assert_drawn_cleanly(dump: &Dump) {
    let tags = tags(&dump.dom);
    let body = tags.iter().find(|t| t.name == "body").unwrap();
    assert_eq!(page_errors(&dump.dom), "", "the page reported errors");
    assert!(
        find(&tags, &[("id", "council-errors")])
            .get("hidden")
            .is_some()
    );
    assert!(dump.console.is_empty(), "console: {:#?}", dump.console);
    assert_eq!(body.get("data-rendered"), Some("true"), "{}", dump.dom);
}

fn week(agent: &str, week: &str, runs: u64, passed: u64) -> PassRatePoint {
    PassRatePoint {
        agent: agent.into(),
        week: week.into(),
        runs,
        passed,
    }
}

fn gate(stage: &str, rule: &str, failed: u64, passed: u64, prs_failed: u64) -> GateRow {
    GateRow {
        stage: stage.into(),
        rule: rule.into(),
        failed,
        passed,
        prs_failed,
    }
}

fn bucket(label: &str, upper_seconds: Option<i64>, count: u64) -> Bucket {
    Bucket {
        label: label.into(),
        upper_seconds,
        count,
    }
}

fn agent(name: &str, prs: u64, runs: u64, passed: u64) -> AgentRow {
    AgentRow {
        agent: name.into(),
        prs,
        guard_runs: runs,
        guard_passed: passed,
        pass_rate: (runs > 0).then(|| passed as f64 / runs as f64),
        top_failing_rule: Some("check:branch-name".into()),
        top_failing_count: 1,
        review_findings: 2,
        merged: 1,
        unverified_prs: 0,
    }
}

fn entry(position: u64, agent: &str, action: &str, result: &str, message: &str) -> TimelineRow {
    TimelineRow {
        position,
        agent: agent.into(),
        action: action.into(),
        result: result.into(),
        message: message.into(),
        timestamp: format!("2025-01-0{}T10:0{position}:00Z", 6 + position),
        sha: format!("{position}abcdef0123456789abcdef0123456789abcdef"),
    }
}

fn pr(number: u64, verification: &str, detail: Option<&str>) -> PrRow {
    PrRow {
        repository: "acme/web".into(),
        pr: number,
        title: Some(format!("Change number {number}")),
        author: "alice".into(),
        source_branch: format!("feat/{number}"),
        target_branch: "main".into(),
        attribution: "github".into(),
        guard_status: "PASS".into(),
        review_status: "APPROVED".into(),
        release_status: "MERGED".into(),
        verification: verification.into(),
        verification_detail: detail.map(String::from),
        signatures_checked: true,
        entries: 2,
        opened_at: Some("2025-01-06T09:00:00Z".into()),
        merged_at: Some("2025-01-06T12:20:00Z".into()),
        source: "artifact".into(),
        timeline: vec![
            entry(1, "guard", "check", "PASS", "branch name ok"),
            entry(2, "review", "review", "APPROVED", "looks good"),
        ],
    }
}

/// Known numbers: 3 agents over 3 weeks, 5 gates, 4 buckets, one PR per verification
/// state, and hostile text where users write it.
fn known() -> ReportData {
    let mut partial = pr(13, "partial", Some("2 of 3 entries signed"));
    partial.title = Some(format!("{HOSTILE} and \u{202e}txt.exe"));
    partial.author = HOSTILE.into();
    // An imported file's header alone names this author.
    partial.attribution = "header".into();
    let mut claimed = agent(HOSTILE, 1, 6, 5);
    claimed.unverified_prs = 1;
    let mut failed = pr(14, "failed", Some("entry 2: hash does not match"));
    failed.source_branch = "feat/\u{202e}gpj.exe".into();
    failed
        .timeline
        .push(entry(3, "release", "merge", "FAIL", HOSTILE));
    failed.entries = 9;
    ReportData {
        generated_at: "2025-01-27T08:00:00Z".into(),
        store: "sqlite:/var/council/audit.db".into(),
        repositories: vec!["acme/web".into(), "acme/api".into()],
        totals: Totals {
            contexts: 3,
            entries: 13,
            verified: 1,
            partial: 1,
            failed: 1,
            merged: 6,
            rolled_back: 1,
            unverified_attribution: 1,
        },
        agents: vec![agent("alice", 5, 12, 7), agent("bob", 3, 5, 1), claimed],
        pass_rate_over_time: vec![
            week("alice", "2025-01-06", 3, 2),
            week("bob", "2025-01-06", 2, 1),
            week("alice", "2025-01-13", 4, 4),
            week("bob", "2025-01-13", 3, 0),
            week("alice", "2025-01-20", 5, 1),
            week(HOSTILE, "2025-01-20", 6, 5),
        ],
        gate_failures: vec![
            gate("guard", "check:branch-name", 3, 10, 2),
            gate("guard", "check:secret-scan", 2, 11, 2),
            gate("review", "check:tests", 1, 5, 1),
            gate("guard", HOSTILE_RULE, 1, 1, 1),
            gate("release", "check:ci", 0, 7, 0),
        ],
        time_to_merge: TimeToMerge {
            count: 6,
            median_seconds: Some(12_000),
            p90_seconds: Some(432_000),
            mean_seconds: Some(90_061),
            min_seconds: Some(600),
            max_seconds: Some(700_000),
            buckets: vec![
                bucket("< 1 h", Some(3_600), 2),
                bucket("1 h \u{2013} 1 d", Some(86_400), 3),
                bucket("1 d \u{2013} 1 w", Some(604_800), 1),
                bucket("\u{2265} 1 w", None, 0),
            ],
        },
        rollbacks: vec![RollbackRow {
            repository: "acme/web".into(),
            pr: 12,
            author: "alice".into(),
            attribution: "github".into(),
            at: Some("2025-01-21T10:00:00Z".into()),
            message: "Revert \"Change number 12\"".into(),
        }],
        failures: vec![FailureRow {
            repository: "acme/web".into(),
            pr: Some(14),
            context_id: "acme/web#14".into(),
            source: "artifact".into(),
            position: Some(2),
            problem: "entry 2: hash does not match".into(),
            found_at: "2025-01-22T10:00:00Z".into(),
        }],
        prs: vec![pr(12, "verified", None), partial, failed],
        omitted_prs: 7,
    }
}

#[test]
fn the_page_draws_the_numbers_it_was_given() {
    let Some(browser) = chromium() else { return };
    let data = known();
    let page = render_html(&data);
    let dump = open_in_chromium(&browser, &page);
    say(&format!(
        "report page: {} bytes ({} of data); chromium dumped it in {} ms",
        page.len(),
        page.len() - render_html(&ReportData::default()).len(),
        dump.elapsed.as_millis()
    ));
    assert_drawn_cleanly(&dump);
    let tags = tags(&dump.dom);

    for (name, value) in [
        ("contexts", "3"),
        ("entries", "13"),
        ("failed", "1"),
        ("merged", "6"),
        ("unverified_attribution", "1"),
    ] {
        assert_eq!(
            find(&tags, &[("data-total", name)]).get("data-value"),
            Some(value)
        );
    }
    for (agent, week, rate) in [
        ("alice", "2025-01-06", "66.7"),
        ("alice", "2025-01-13", "100.0"),
        ("alice", "2025-01-20", "20.0"),
        ("bob", "2025-01-06", "50.0"),
        ("bob", "2025-01-13", "0.0"),
        (HOSTILE, "2025-01-20", "83.3"),
    ] {
        let point = find(&tags, &[("data-agent", agent), ("data-week", week)]);
        assert_eq!(
            (point.name.as_str(), point.get("data-rate")),
            ("circle", Some(rate))
        );
    }
    for row in &data.gate_failures {
        let bar = find(
            &tags,
            &[("data-stage", &row.stage), ("data-rule", &row.rule)],
        );
        assert_eq!(
            bar.get("data-failed"),
            Some(row.failed.to_string().as_str()),
            "{}",
            row.rule
        );
        assert_eq!(
            bar.get("data-passed"),
            Some(row.passed.to_string().as_str()),
            "{}",
            row.rule
        );
    }
    for (label, count) in [
        ("< 1 h", "2"),
        ("1 h \u{2013} 1 d", "3"),
        ("1 d \u{2013} 1 w", "1"),
    ] {
        assert_eq!(
            find(&tags, &[("data-bucket", label)]).get("data-count"),
            Some(count)
        );
    }
    assert_eq!(
        find(&tags, &[("data-bucket", "\u{2265} 1 w")]).get("data-count"),
        Some("0")
    );
    for (stat, shown) in [
        ("median", "3 h 20 min"),
        ("p90", "5 d"),
        ("mean", "1 d 1 h"),
        ("min", "10 min"),
        ("max", "8 d 2 h"),
    ] {
        find(&tags, &[("data-stat", stat)]);
        assert!(
            dump.dom.contains(&format!("<dd>{shown}</dd>")),
            "{stat}: {shown}"
        );
    }
    for (number, verification, detail) in [
        ("12", "verified", "verification: verified"),
        ("13", "partial", "2 of 3 entries signed"),
        ("14", "failed", "entry 2: hash does not match"),
    ] {
        let key = format!("acme/web #{number}");
        let badges: Vec<&Tag> = tags
            .iter()
            .filter(|t| t.get("class").is_some_and(|c| c.starts_with("badge")))
            .filter(|t| t.get("data-pr") == Some(&key))
            .collect();
        assert!(!badges.is_empty(), "{key}");
        for badge in badges {
            assert_eq!(badge.get("data-verification"), Some(verification));
            assert_eq!(badge.get("title"), Some(detail));
        }
    }
    let timeline_rows = tags
        .iter()
        .filter(|t| t.get("data-position").is_some())
        .count();
    assert_eq!(timeline_rows, 7, "every PR's timeline, eagerly drawn");
    assert_eq!(
        tags.iter()
            .filter(|t| t.name == "tr" && t.get("data-agent").is_some())
            .count(),
        3
    );
    // The author only an unsigned header names is marked so, in the agents' table and
    // on its pull request; the others are not.
    for (agent, unverified) in [("alice", "0"), ("bob", "0"), (HOSTILE, "1")] {
        let row = find(
            &tags,
            &[("data-agent", agent), ("data-unverified", unverified)],
        );
        assert_eq!(row.name, "tr");
    }
    let marks: Vec<&Tag> = tags
        .iter()
        .filter(|t| t.get("class") == Some("unverified"))
        .collect();
    assert_eq!(marks.len(), 2, "the agent and its pull request");
    assert_eq!(dom_count(&dump.dom, "(1 unverified)</span>"), 1);
    assert_eq!(dom_count(&dump.dom, " (unverified)</span>"), 1);
    find(&tags, &[("data-rollback", "acme/web #12")]);
    find(&tags, &[("data-failure", "acme/web#14")]);
    let omitted = find(&tags, &[("data-omitted", "7")]);
    assert_eq!(omitted.name, "p");
    assert!(dump.dom.contains("7 more pull requests not listed"));

    assert_hostile_text_is_text(&dump.dom, &tags);
}

fn dom_count(dom: &str, text: &str) -> usize {
    dom.matches(text).count()
}

/// The hostile strings are shown as text, never parsed as markup.
fn assert_hostile_text_is_text(dom: &str, tags: &[Tag]) {
    let escaped = "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;";
    assert!(dom.matches(escaped).count() >= 3, "title, author, message");
    assert!(!dom.contains("<img src=\"x\""));
    assert!(
        tags.iter().all(|t| t.name != "img"),
        "no image element at all"
    );
    assert!(
        tags.iter()
            .all(|t| t.attrs.iter().all(|(n, _)| !n.starts_with("on"))),
        "no event handler attribute"
    );
    // Bidi overrides are shown as code points in text, so a title cannot reorder itself.
    assert!(dom.contains("&lt;U+202E&gt;txt.exe"));
    assert!(dom.contains("feat/&lt;U+202E&gt;gpj.exe"));
}

#[test]
fn an_empty_store_draws_a_no_data_line_per_section() {
    let Some(browser) = chromium() else { return };
    let dump = open_in_chromium(&browser, &render_html(&ReportData::default()));
    assert_drawn_cleanly(&dump);
    let tags = tags(&dump.dom);
    for section in [
        "pass-rate",
        "gates",
        "time-to-merge",
        "agents",
        "prs",
        "rollbacks",
        "failures",
    ] {
        find(&tags, &[("data-empty", section)]);
    }
    assert!(tags.iter().all(|t| t.name != "svg"));
}

/// The checks above would see a failure: a page whose data does not parse shows the
/// error in `#council-errors`, logs it to the console and is not marked rendered.
#[test]
fn the_checks_see_a_broken_page() {
    let Some(browser) = chromium() else { return };
    let page = render_html(&ReportData::default());
    let json = serde_json::to_string(&ReportData::default()).unwrap();
    let broken = page.replacen(&json, "{not json", 1);
    assert_ne!(broken, page);
    let dump = open_in_chromium(&browser, &broken);
    assert!(
        page_errors(&dump.dom).contains("SyntaxError"),
        "{}",
        dump.dom
    );
    assert!(
        dump.console
            .iter()
            .any(|l| l.contains("Uncaught SyntaxError")),
        "{:#?}",
        dump.console
    );
    let tags = tags(&dump.dom);
    let body = tags.iter().find(|t| t.name == "body").unwrap();
    assert_eq!(body.get("data-rendered"), None);
}

/// The whole way, on each engine: a store with known contents, its report's numbers
/// computed by the store's queries, drawn by the page in the browser.
#[tokio::test(flavor = "multi_thread")]
async fn a_known_store_is_drawn_with_its_numbers() {
    let Some(browser) = chromium() else { return };
    for db in support::each_engine().await {
        let mut store = db.open().await;
        objects::known_store(&mut store).await;
        let data = store
            .report_data(&Filter::default(), "2026-03-20T12:00:00Z")
            .await
            .expect(db.engine);
        let page = render_html(&data);
        let dump = tokio::task::spawn_blocking({
            let browser = browser.clone();
            move || open_in_chromium(&browser, &page)
        })
        .await
        .unwrap();
        assert_drawn_cleanly(&dump);
        let tags = tags(&dump.dom);
        for (name, value) in [
            ("contexts", "3"),
            ("entries", "16"),
            ("verified", "3"),
            ("failed", "0"),
            ("merged", "2"),
            ("rolled_back", "1"),
        ] {
            assert_eq!(
                find(&tags, &[("data-total", name)]).get("data-value"),
                Some(value),
                "{}: {name}",
                db.engine
            );
        }
        for (stage, rule, failed, passed) in [
            ("guard", "check:branch-name", "1", "4"),
            ("guard", "check:target-branch", "2", "3"),
            ("review", "check:secret-scan", "1", "0"),
            ("release", "check:pipeline", "0", "1"),
        ] {
            let bar = find(&tags, &[("data-stage", stage), ("data-rule", rule)]);
            assert_eq!(
                (bar.get("data-failed"), bar.get("data-passed")),
                (Some(failed), Some(passed)),
                "{}: {rule}",
                db.engine
            );
        }
        for (agent, week, rate) in [
            ("agent-1", "2026-03-02", "50.0"),
            ("agent-1", "2026-03-09", "100.0"),
            ("agent-2", "2026-03-09", "0.0"),
        ] {
            let point = find(&tags, &[("data-agent", agent), ("data-week", week)]);
            assert_eq!(
                point.get("data-rate"),
                Some(rate),
                "{}: {agent} {week}",
                db.engine
            );
        }
        for (label, count) in [
            ("< 1 h", "1"),
            ("1\u{2013}4 h", "1"),
            ("4\u{2013}24 h", "0"),
        ] {
            assert_eq!(
                find(&tags, &[("data-bucket", label)]).get("data-count"),
                Some(count),
                "{}: {label}",
                db.engine
            );
        }
        for pr in 1..=3 {
            let key = format!("octo/app #{pr}");
            let badge = tags
                .iter()
                .filter(|t| t.get("class").is_some_and(|c| c.starts_with("badge")))
                .find(|t| t.get("data-pr") == Some(&key))
                .unwrap_or_else(|| panic!("{}: no badge for {key}", db.engine));
            assert_eq!(badge.get("data-verification"), Some("verified"));
        }
        find(&tags, &[("data-rollback", "octo/app #2")]);
    }
}
