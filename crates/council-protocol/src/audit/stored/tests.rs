use super::*;
use crate::audit::GuardStatus;
use crate::audit::timeline::{Record, RunInfo, new_entry};
use crate::audit::verify::verify;

fn pr_context(head: &str) -> ContextObject {
    let mut pr = crate::event::sample_pull_request();
    pr.head_ref = head.to_string();
    ContextObject::new(
        "o/r",
        &pr,
        "webhook:pull_request.opened",
        "2026-11-22T10:00:00Z",
    )
}

fn run(id: &str, attempt: u64) -> RunInfo {
    RunInfo {
        run_id: id.into(),
        run_attempt: attempt,
        job: "council".into(),
    }
}

fn entry(run: &RunInfo, action: &str, result: &str) -> Entry {
    new_entry(
        run,
        &Record {
            stage: "guard",
            agent: "agent_guard",
            action: action.into(),
            result: result.into(),
            message: format!("{action} {result}"),
        },
        "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
        "2026-11-22T10:00:00Z",
    )
}

fn ours(run_id: &str, results: (&str, &str)) -> ContextObject {
    let mut ctx = pr_context("changes");
    let r = run(run_id, 1);
    ctx.timeline = vec![
        entry(&r, "check:branch-name", results.0),
        entry(&r, "check:target-branch", results.1),
    ];
    ctx
}

fn whole_file(stored: &Stored) -> Value {
    serde_json::to_value(&stored.context).unwrap()
}

#[test]
fn merging_appends_without_duplicates_and_keeps_the_chain_valid() {
    let first = merge(None, &ours("1", ("FAIL", "FAIL")), None).unwrap();
    assert_eq!(first.context.timeline.len(), 2);
    verify(&whole_file(&first), None).unwrap();
    let again = merge(Some(first.clone()), &ours("1", ("FAIL", "FAIL")), None).unwrap();
    assert_eq!(
        again.context.timeline, first.context.timeline,
        "same run twice adds nothing"
    );
    let second = merge(Some(first.clone()), &ours("2", ("PASS", "PASS")), None).unwrap();
    assert_eq!(second.context.timeline.len(), 4);
    assert_eq!(
        second.context.timeline[..2],
        first.context.timeline[..],
        "earlier entries untouched"
    );
    verify(&whole_file(&second), None).unwrap();
    assert_eq!(
        second.context.state.guard_status,
        GuardStatus::Pass,
        "the newest check decides"
    );
    assert_eq!(
        second.context.gates.get("naming_convention"),
        Some(Some(&crate::audit::gates::GateValue::Pass))
    );
}

#[test]
fn signatures_are_added_with_a_key_and_checked() {
    let stored = merge(None, &ours("1", ("PASS", "PASS")), Some(b"k")).unwrap();
    assert!(stored.context.timeline.iter().all(|e| {
        e.signature
            .as_deref()
            .is_some_and(|s| s.starts_with("hmac-sha256:"))
    }));
    stored.verify(Some(b"k")).unwrap();
    assert!(stored.verify(Some(b"other")).is_err());
}

#[test]
fn the_comment_round_trips_and_hides_nothing_that_could_close_it() {
    let mut ctx = ours("1", ("FAIL", "FAIL"));
    ctx.subject.source_branch = "evil-->branch<!--x--!>".into();
    ctx.timeline[0].message = "--> </details> <script>".into();
    let stored = merge(None, &ctx, None).unwrap();
    let (kept, body) = render_fitting(stored.clone(), &Links::default());
    assert_eq!(kept, stored);
    assert!(is_ledger(&body));
    let data = &body[body.find("ledger:data").unwrap()..];
    assert_eq!(
        data.matches("-->").count(),
        1,
        "only the real end of the comment"
    );
    assert!(!data.contains("<script>"));
    assert_eq!(parse(&body).unwrap(), stored);
}

#[test]
fn a_large_timeline_is_compacted_under_the_limit_and_its_tail_still_verifies() {
    let mut stored = merge(None, &ours("0", ("FAIL", "FAIL")), Some(b"k")).unwrap();
    for i in 1..400 {
        let mut ctx = ours(&i.to_string(), ("FAIL", "PASS"));
        for e in &mut ctx.timeline {
            e.message = format!("{} {}", e.message, "long explanation ".repeat(20));
        }
        stored = merge(Some(stored), &ctx, Some(b"k")).unwrap();
    }
    let full = stored.clone();
    let (kept, body) = render_fitting(stored, &Links::default());
    assert!(body.chars().count() <= COMMENT_LIMIT);
    assert!(!kept.is_complete());
    assert_eq!(kept.omitted.count + kept.context.timeline.len(), 800);
    let n = kept.omitted.count;
    assert_eq!(
        kept.omitted.head_hash,
        full.context.timeline[n - 1].hash,
        "the chain head is kept"
    );
    kept.verify(Some(b"k")).unwrap();
    assert_eq!(parse(&body).unwrap(), kept);
    // Appending to the compacted ledger links onto the kept tail.
    let mut next = kept.clone();
    next.append(&ours("9999", ("PASS", "PASS")).timeline, Some(b"k"))
        .unwrap();
    next.verify(Some(b"k")).unwrap();
}

#[test]
fn tampering_in_the_comment_is_detected() {
    let stored = merge(None, &ours("1", ("FAIL", "FAIL")), None).unwrap();
    let (_, body) = render_fitting(stored, &Links::default());
    let edited = body.replace("check:branch-name FAIL", "check:branch-name PASS");
    let parsed = parse(&edited).unwrap();
    assert!(parsed.verify(None).is_err());
}

#[test]
fn broken_comments_are_errors_not_panics() {
    assert_eq!(parse("hello"), Err(LedgerError::NoData));
    assert_eq!(
        parse(&format!("{MARKER}\n<!-- agent-council:ledger:data\n")),
        Err(LedgerError::NoData)
    );
    assert!(matches!(
        parse(&format!(
            "{MARKER}\n<!-- agent-council:ledger:data\n{{\"context\": 1}}\n-->"
        )),
        Err(LedgerError::BadData(_))
    ));
}

#[test]
fn a_file_holding_only_the_tail_verifies_from_its_recorded_head() {
    use crate::audit::verify::{TamperKind, verify_document};
    let mut stored = merge(None, &ours("0", ("FAIL", "FAIL")), None).unwrap();
    for i in 1..5 {
        stored = merge(Some(stored), &ours(&i.to_string(), ("PASS", "PASS")), None).unwrap();
    }
    stored.omit_oldest(4);
    let mut doc = whole_file(&stored);
    doc["timeline_omitted"] =
        serde_json::json!({"count": 4, "head_hash": stored.omitted.head_hash});
    let (report, omitted) = verify_document(&doc, None).unwrap();
    assert_eq!((report.entries, omitted), (6, 4));
    assert!(
        verify(&doc, None).is_err(),
        "without the anchor the first link is broken"
    );
    doc["timeline_omitted"]["head_hash"] = "sha256:nope".into();
    assert_eq!(
        verify_document(&doc, None).unwrap_err().kind,
        TamperKind::BadAnchor
    );
}

#[test]
fn hidden_characters_in_the_machine_block_are_escapes_and_read_back_the_same() {
    let mut pr = crate::event::sample_pull_request();
    pr.head_ref = "feature/x-\u{202E}nigol\u{200B}-\u{E0041}<b>".into();
    let ours = ContextObject::new("o/r", &pr, "t", "2026-01-01T00:00:00Z");
    let stored = merge(None, &ours, None).unwrap();
    let body = render(&stored, &Links::default());
    for raw in ['\u{202E}', '\u{200B}', '\u{E0041}'] {
        assert!(!body.contains(raw), "{raw:?} raw in the comment");
    }
    assert!(body.contains("\\u202e") && body.contains("\\udb40\\udc41"));
    assert_eq!(
        parse(&body).unwrap().context.subject.source_branch,
        pr.head_ref
    );
}

#[test]
fn a_hostile_omitted_count_saturates_instead_of_overflowing() {
    let mut context = pr_context("feature/x");
    context.extra.insert(
        "timeline_omitted".into(),
        serde_json::json!({"count": u64::MAX, "head_hash": "sha256:00"}),
    );
    context
        .timeline
        .push(entry(&run("1", 1), "check:branch-name", "PASS"));
    let stored = Stored::from_file(context);
    assert_eq!(stored.total_entries(), usize::MAX);
}

/// The acceptance run's attack: `timeline_omitted.count` = 2^63 − 1 (and the unsigned
/// head to match) made every position overflow the store's integers. Counts beyond
/// what any timeline holds are refused as tampering, from a comment and from a file.
#[test]
fn an_omitted_count_beyond_any_timeline_is_refused() {
    use crate::audit::head::Head;
    use crate::audit::timeline::MAX_ENTRIES;
    use crate::audit::verify::{TamperKind, verify_document};
    let full = merge(None, &ours("1", ("PASS", "PASS")), None).unwrap();
    for count in [i64::MAX as u64, u64::MAX, MAX_ENTRIES + 1] {
        let mut tail = full.clone();
        tail.omitted.count = count as usize;
        tail.omitted.head_hash = tail.context.timeline[0].prev_hash.clone();
        tail.head = Some(Head::new(
            tail.total_entries(),
            &tail.context.timeline[1].hash.clone(),
            None,
        ));
        let err = tail.verify(None).unwrap_err();
        assert_eq!(err, StoredError::TooManyOmitted(count as usize));
        assert!(err.to_string().contains("1,000,000,000"), "{err}");
        // The comment's machine block, parsed as the ledger and `audit sync` do.
        let parsed = parse(&render(&tail, &Links::default())).unwrap();
        assert!(matches!(
            parsed.verify(None),
            Err(StoredError::TooManyOmitted(_))
        ));
        let mut doc = whole_file(&full);
        doc["timeline_omitted"] =
            serde_json::json!({"count": count, "head_hash": tail.omitted.head_hash});
        assert!(matches!(
            verify_document(&doc, None).unwrap_err().kind,
            TamperKind::BadOmitted { .. }
        ));
    }
    // At the bound it is only a (long) tail.
    let mut tail = full.clone();
    tail.omitted.count = MAX_ENTRIES as usize;
    assert!(!matches!(
        tail.verify(None),
        Err(StoredError::TooManyOmitted(_))
    ));
}
