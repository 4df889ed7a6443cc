//! The fake GitHub checked against itself over real HTTP, through the product's own
//! client: every route, pagination, tokens and permissions, merges, fault drills and
//! GraphQL dispatch. Review and release tests rely on these answers being GitHub's.

use std::time::{Duration, Instant};

use agent_council::github::retry::RetryPolicy;
use agent_council::github::rest::link;
use agent_council::github::{ApiError, GitHub, GitHubConfig, RepoName};
use http::Method;
use serde_json::{Value, json};

use crate::support::{Council, REPO};
use crate::support::fake_github::FakeGitHub;
use crate::support::faults::Fault;
use crate::support::graphql;
use crate::support::tokens::{Access, RELEASE_LOGIN, RELEASE_TOKEN, Scope, WORKFLOW_TOKEN};
use crate::support::world::PrFile;

const SHA: &str = "1111111111111111111111111111111111111111";
const NEXT: &str = "2222222222222222222222222222222222222222";

/// The product's client for one token, retrying fast.
fn client(gh: &FakeGitHub, token: &str) -> GitHub {
    let config = GitHubConfig {
        api_url: gh.uri(),
        graphql_url: format!("{}/graphql", gh.uri()),
        token: Some(token.to_string()),
        retry: RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_secs(5),
        },
        read_only: false,
    };
    GitHub::new(&config, RepoName::parse(REPO).expect("repo name")).expect("client")
}

fn repo(rest: &str) -> String {
    format!("/repos/{REPO}{rest}")
}

async fn get_json(api: &GitHub, path: &str) -> Value {
    api.get(path, &repo(path), None)
        .await
        .unwrap_or_else(|e| panic!("GET {path}: {e}"))
        .json(path)
        .expect("JSON")
}

fn numbers(list: &Value) -> Vec<u64> {
    list.as_array()
        .expect("a list")
        .iter()
        .filter_map(|p| p["number"].as_u64())
        .collect()
}

/// One request over a plain socket: GitHub's exact status and error body, which the
/// product's client folds into its error types.
async fn raw(gh: &FakeGitHub, method: &str, path: &str, token: &str, body: Value) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = gh.server.address();
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect");
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.expect("read");
    let text = String::from_utf8_lossy(&response);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

// ------------------------------------------------------------------ pull requests

#[tokio::test(flavor = "multi_thread")]
async fn a_pull_request_reads_back_as_the_scene_set_it() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .title("Add login")
        .author("alice")
        .head("feature/x", SHA)
        .base("develop")
        .label("bot-approved")
        .mergeable_state("behind")
        .auto_merge("alice", "squash");
    let api = client(&gh, WORKFLOW_TOKEN);

    let pr = get_json(&api, "/pulls/7").await;
    assert_eq!(pr["number"], 7);
    assert_eq!(pr["title"], "Add login");
    assert_eq!(pr["user"]["login"], "alice");
    assert_eq!(pr["state"], "open");
    assert_eq!(pr["draft"], false);
    assert_eq!(pr["head"]["ref"], "feature/x");
    assert_eq!(pr["head"]["sha"], SHA);
    assert_eq!(pr["head"]["label"], "Codertocat:feature/x");
    assert_eq!(pr["head"]["repo"]["fork"], false);
    assert_eq!(pr["base"]["ref"], "develop");
    assert_eq!(pr["base"]["sha"], gh.branch_head("develop").unwrap());
    assert_eq!(pr["labels"][0]["name"], "bot-approved");
    assert_eq!(pr["mergeable"], true);
    assert_eq!(pr["mergeable_state"], "behind");
    assert_eq!(pr["auto_merge"]["merge_method"], "squash");
    assert_eq!(pr["merged"], false);
    assert_eq!(pr["merge_commit_sha"], Value::Null);

    let missing = api.get("a PR", &repo("/pulls/8"), None).await.unwrap_err();
    assert!(matches!(missing, ApiError::NotFound { .. }), "{missing}");
    // A pull request is an issue too.
    let issue = get_json(&api, "/issues/7").await;
    assert_eq!(issue["user"]["login"], "alice");
    assert!(issue.get("pull_request").is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn open_pulls_are_found_by_head_label_and_by_commit() {
    let gh = FakeGitHub::start().await;
    gh.pr(7).head("feature/x", SHA);
    gh.pr(8).head("feature/y", NEXT).fork("mallory");
    gh.pr(9).head("feature/z", SHA).closed();
    let api = client(&gh, WORKFLOW_TOKEN);

    let mine = get_json(&api, "/pulls?state=open&head=Codertocat:feature/x").await;
    assert_eq!(numbers(&mine), [7]);
    let fork = get_json(&api, "/pulls?state=open&head=mallory:feature/y").await;
    assert_eq!(numbers(&fork), [8]);
    assert_eq!(fork[0]["head"]["repo"]["fork"], true);
    assert_eq!(fork[0]["head"]["repo"]["full_name"], "mallory/Hello-World");
    assert!(
        fork[0].get("mergeable").is_none(),
        "lists carry no mergeability"
    );
    // `head` needs the owner, as GitHub documents.
    assert_eq!(
        numbers(&get_json(&api, "/pulls?state=open&head=feature/x").await),
        Vec::<u64>::new()
    );
    assert_eq!(numbers(&get_json(&api, "/pulls").await), [8, 7]);
    assert_eq!(
        numbers(&get_json(&api, "/pulls?state=all").await),
        [9, 8, 7]
    );
    assert_eq!(
        numbers(&get_json(&api, &format!("/commits/{SHA}/pulls")).await),
        [7, 9]
    );
}

// ------------------------------------------------------------------------ files

#[tokio::test(flavor = "multi_thread")]
async fn files_page_with_links_and_stop_at_3000_as_github_does() {
    let gh = FakeGitHub::start().await;
    gh.pr(7).many_files(3_500);
    let api = client(&gh, WORKFLOW_TOKEN);

    let first = api
        .get("files", &repo("/pulls/7/files?per_page=100"), None)
        .await
        .unwrap();
    let next = link(&first.headers, "next").unwrap();
    assert!(next.ends_with("/pulls/7/files?per_page=100&page=2"), "{next}");
    let last = link(&first.headers, "last").unwrap();
    assert!(last.ends_with("page=30"), "{last}");
    assert_eq!(link(&first.headers, "prev"), None);

    let second = api.get("files", &next, None).await.unwrap();
    assert!(link(&second.headers, "prev").unwrap().ends_with("page=1"));
    assert!(link(&second.headers, "first").unwrap().ends_with("page=1"));

    let pages: Vec<Vec<Value>> = api
        .get_pages("files", repo("/pulls/7/files?per_page=100"), 100)
        .await
        .unwrap();
    assert_eq!(pages.len(), 30);
    let all: Vec<Value> = pages.into_iter().flatten().collect();
    assert_eq!(all.len(), 3_000, "GitHub lists at most 3,000 files");
    assert_eq!(all[2_999]["filename"], "src/generated/file_3000.rs");
    // The PR itself still counts every file.
    assert_eq!(get_json(&api, "/pulls/7").await["changed_files"], 3_500);
    // 30 a page unless asked, 100 at most.
    let default: Vec<Value> = get_json(&api, "/pulls/7/files")
        .await
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(default.len(), 30);
    let capped = get_json(&api, "/pulls/7/files?per_page=500").await;
    assert_eq!(capped.as_array().unwrap().len(), 100);
}

#[tokio::test(flavor = "multi_thread")]
async fn file_entries_say_what_changed_and_binary_files_have_no_patch() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .file(PrFile::added("src/a.rs", "fn a() {}\nfn b() {}"))
        .file(PrFile::modified("src/lib.rs", &["old"], &["new", "more"]))
        .file(PrFile::renamed("docs/old.md", "docs/new.md"))
        .file(PrFile::binary("logo.png"))
        .file(PrFile::removed("gone.txt", "bye"));
    let files = get_json(&client(&gh, WORKFLOW_TOKEN), "/pulls/7/files").await;

    assert_eq!(files[0]["status"], "added");
    assert_eq!(files[0]["additions"], 2);
    assert_eq!(files[0]["changes"], 2);
    assert_eq!(
        files[0]["patch"],
        "@@ -0,0 +1,2 @@\n+fn a() {}\n+fn b() {}"
    );
    assert_eq!(files[1]["status"], "modified");
    assert_eq!(
        (&files[1]["additions"], &files[1]["deletions"], &files[1]["changes"]),
        (&json!(2), &json!(1), &json!(3))
    );
    assert_eq!(files[2]["status"], "renamed");
    assert_eq!(files[2]["previous_filename"], "docs/old.md");
    assert!(files[2].get("patch").is_none());
    assert!(
        files[3].get("patch").is_none(),
        "a binary file has no patch key"
    );
    assert!(files[3].get("previous_filename").is_none());
    assert_eq!(files[4]["status"], "removed");
    assert_eq!(files[4]["patch"], "@@ -1,1 +0,0 @@\n-bye");
}

// ------------------------------------------------------------------------ labels

#[tokio::test(flavor = "multi_thread")]
async fn labels_are_added_and_removed_as_github_answers() {
    let gh = FakeGitHub::start().await;
    gh.pr(7).label("bug");
    let api = client(&gh, WORKFLOW_TOKEN);

    let added = api
        .send_json(
            "labels",
            Method::POST,
            &repo("/issues/7/labels"),
            &json!({"labels": ["bot-approved", "Bug", "needs review/ci"]}),
        )
        .await
        .unwrap()
        .json::<Value>("labels")
        .unwrap();
    let names: Vec<&str> = added
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["name"].as_str())
        .collect();
    assert_eq!(names, ["bug", "bot-approved", "needs review/ci"]);

    let left = api
        .delete("a label", &repo("/issues/7/labels/needs%20review%2Fci"))
        .await
        .unwrap()
        .json::<Value>("labels")
        .unwrap();
    assert_eq!(left.as_array().unwrap().len(), 2);
    assert_eq!(gh.pr_state(7).labels, ["bug", "bot-approved"]);

    let (status, body) = raw(
        &gh,
        "DELETE",
        &repo("/issues/7/labels/wontfix"),
        WORKFLOW_TOKEN,
        Value::Null,
    )
    .await;
    assert_eq!((status, &body["message"]), (404, &json!("Label does not exist")));
    let (status, body) = raw(
        &gh,
        "POST",
        &repo("/issues/7/labels"),
        WORKFLOW_TOKEN,
        json!({"names": ["x"]}),
    )
    .await;
    assert_eq!((status, &body["message"]), (422, &json!("Validation Failed")));
    let (status, _) = raw(
        &gh,
        "POST",
        &repo("/issues/8/labels"),
        WORKFLOW_TOKEN,
        json!({"labels": ["x"]}),
    )
    .await;
    assert_eq!(status, 404, "no such issue");
}

// ----------------------------------------------------------------------- reviews

#[tokio::test(flavor = "multi_thread")]
async fn reviews_are_listed_in_order_and_paginated() {
    let gh = FakeGitHub::start().await;
    let mut pr = gh
        .pr(7)
        .review("alice", "COMMENTED", SHA)
        .review("bob", "CHANGES_REQUESTED", SHA);
    for i in 0..33 {
        pr = pr.review(&format!("reviewer{i}"), "APPROVED", NEXT);
    }
    let api = client(&gh, WORKFLOW_TOKEN);
    let pages: Vec<Vec<Value>> = api
        .get_pages("reviews", repo("/pulls/7/reviews"), 10)
        .await
        .unwrap();
    assert_eq!(
        pages.iter().map(Vec::len).collect::<Vec<_>>(),
        [30, 5],
        "GitHub's 30 a page"
    );
    let first = &pages[0][0];
    assert_eq!(first["user"]["login"], "alice");
    assert_eq!(first["state"], "COMMENTED");
    assert_eq!(first["commit_id"], SHA);
    assert!(first["submitted_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(pages[1][4]["user"]["login"], "reviewer32");
}

// ------------------------------------------------------------------- CI results

#[tokio::test(flavor = "multi_thread")]
async fn check_runs_keep_the_latest_per_name_unless_all_are_asked_for() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .head("feature/x", SHA)
        .check_run("ci", "completed", Some("failure"))
        .check_run("ci", "completed", Some("success"))
        .check_run("lint", "in_progress", None);
    let api = client(&gh, WORKFLOW_TOKEN);

    let latest = get_json(&api, &format!("/commits/{SHA}/check-runs?per_page=100")).await;
    assert_eq!(latest["total_count"], 2);
    let ci = &latest["check_runs"][0];
    assert_eq!(
        (&ci["name"], &ci["status"], &ci["conclusion"]),
        (&json!("ci"), &json!("completed"), &json!("success"))
    );
    assert_eq!(ci["head_sha"], SHA);
    assert_eq!(ci["app"]["slug"], "github-actions");
    assert_eq!(ci["pull_requests"][0]["number"], 7);
    assert_eq!(latest["check_runs"][1]["conclusion"], Value::Null);
    assert_eq!(latest["check_runs"][1]["completed_at"], Value::Null);

    let all = get_json(&api, &format!("/commits/{SHA}/check-runs?filter=all")).await;
    assert_eq!(all["total_count"], 3);
    let named = get_json(&api, &format!("/commits/{SHA}/check-runs?check_name=lint")).await;
    assert_eq!(named["total_count"], 1);
    // A branch name is a ref too.
    let by_branch = get_json(&api, "/commits/feature%2Fx/check-runs").await;
    assert_eq!(by_branch["total_count"], 2);
    // Nothing reported yet on the next commit.
    let none = get_json(&api, &format!("/commits/{NEXT}/check-runs")).await;
    assert_eq!(none, json!({"total_count": 0, "check_runs": []}));
}

#[tokio::test(flavor = "multi_thread")]
async fn check_runs_and_statuses_paginate_their_wrapped_lists() {
    let gh = FakeGitHub::start().await;
    let mut commit = gh.commit(SHA);
    for i in 0..150 {
        commit = commit.check_run(&format!("job {i}"), "completed", Some("success"));
    }
    for i in 0..40 {
        commit = commit.status(&format!("ctx {i}"), "success");
    }
    let api = client(&gh, WORKFLOW_TOKEN);
    let second = api
        .get(
            "checks",
            &repo(&format!("/commits/{SHA}/check-runs?per_page=100&page=2")),
            None,
        )
        .await
        .unwrap();
    assert!(link(&second.headers, "prev").is_some());
    assert_eq!(link(&second.headers, "next"), None);
    let body: Value = second.json("checks").unwrap();
    assert_eq!(body["total_count"], 150);
    assert_eq!(body["check_runs"].as_array().unwrap().len(), 50);

    let pages: Vec<Value> = api
        .get_pages("status", repo(&format!("/commits/{SHA}/status")), 10)
        .await
        .unwrap();
    assert_eq!(pages.len(), 2);
    assert_eq!(pages[0]["total_count"], 40);
    assert_eq!(pages[0]["state"], "success");
    assert_eq!(pages[1]["statuses"].as_array().unwrap().len(), 10);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_combined_status_takes_the_latest_per_context() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .head("feature/x", SHA)
        .status("deploy", "pending")
        .status("deploy", "success")
        .status("docs", "pending");
    let api = client(&gh, WORKFLOW_TOKEN);
    let status = get_json(&api, &format!("/commits/{SHA}/status")).await;
    assert_eq!(status["state"], "pending");
    assert_eq!(status["total_count"], 2);
    assert_eq!(status["sha"], SHA);
    assert_eq!(status["statuses"][0]["context"], "deploy");
    assert_eq!(status["statuses"][0]["state"], "success");

    gh.commit(SHA).status("docs", "error");
    let status = get_json(&api, "/commits/feature%2Fx/status").await;
    assert_eq!(status["state"], "failure");
    // No status at all is `pending`, as GitHub answers.
    let none = get_json(&api, &format!("/commits/{NEXT}/status")).await;
    assert_eq!((&none["state"], &none["total_count"]), (&json!("pending"), &json!(0)));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_finds_its_own_job_and_the_check_run_it_reports_as() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .head("feature/x", SHA)
        .check_run("ci", "completed", Some("success"))
        .own_job(1001, "council");
    let api = client(&gh, WORKFLOW_TOKEN);

    let jobs = get_json(&api, "/actions/runs/1001/jobs").await;
    assert_eq!(jobs["total_count"], 1);
    let job = &jobs["jobs"][0];
    assert_eq!(
        (&job["name"], &job["run_id"], &job["head_sha"], &job["status"]),
        (
            &json!("council"),
            &json!(1001),
            &json!(SHA),
            &json!("in_progress")
        )
    );
    let url = job["check_run_url"].as_str().unwrap();
    let id: u64 = url.rsplit('/').next().unwrap().parse().unwrap();
    let runs = get_json(&api, &format!("/commits/{SHA}/check-runs")).await;
    let own = runs["check_runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .expect("the job's check run");
    assert_eq!(own["name"], "council");
    assert_eq!(own["status"], "in_progress");
    assert_eq!(
        get_json(&api, "/actions/runs/999/jobs").await,
        json!({"total_count": 0, "jobs": []})
    );
}

// ------------------------------------------------------------------------ merges

#[tokio::test(flavor = "multi_thread")]
async fn only_the_release_token_merges_and_the_base_moves_to_the_merge_commit() {
    let gh = FakeGitHub::start().await;
    gh.pr(7).head("feature/x", SHA).base("develop");
    let merge = json!({"sha": SHA, "merge_method": "squash"});

    let refused = client(&gh, WORKFLOW_TOKEN)
        .send_json("merging", Method::PUT, &repo("/pulls/7/merge"), &merge)
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, ApiError::Forbidden { status: 403, message, .. }
            if message == "Resource not accessible by integration"),
        "{refused}"
    );

    let release = client(&gh, RELEASE_TOKEN);
    let wrong = release
        .send_json(
            "merging",
            Method::PUT,
            &repo("/pulls/7/merge"),
            &json!({"sha": NEXT}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        wrong,
        ApiError::Rejected {
            what: "merging".into(),
            status: 409,
            message: "Head branch was modified. Review and try the merge again.".into()
        }
    );

    let merged: Value = release
        .send_json("merging", Method::PUT, &repo("/pulls/7/merge"), &merge)
        .await
        .unwrap()
        .json("merge")
        .unwrap();
    assert_eq!(merged["merged"], true);
    assert_eq!(merged["message"], "Pull Request successfully merged");
    let sha = merged["sha"].as_str().unwrap().to_string();
    let pr = gh.pr_state(7);
    assert!(pr.merged && !pr.open);
    assert_eq!(pr.merge_commit_sha.as_deref(), Some(sha.as_str()));
    assert_eq!(pr.merged_by.as_deref(), Some(RELEASE_LOGIN));
    assert_eq!(gh.branch_head("develop"), Some(sha.clone()));
    // A push of the merge commit finds its pull request.
    let api = client(&gh, WORKFLOW_TOKEN);
    assert_eq!(
        numbers(&get_json(&api, &format!("/commits/{sha}/pulls")).await),
        [7]
    );
    let rest = get_json(&api, "/pulls/7").await;
    assert_eq!(
        (&rest["state"], &rest["merged"], &rest["merge_commit_sha"]),
        (&json!("closed"), &json!(true), &json!(sha))
    );
    assert_eq!(rest["merged_by"]["login"], RELEASE_LOGIN);

    let again = release
        .send_json("merging", Method::PUT, &repo("/pulls/7/merge"), &merge)
        .await
        .unwrap_err();
    assert!(
        matches!(&again, ApiError::Rejected { status: 405, message, .. } if message == "Pull Request is not mergeable"),
        "{again}"
    );
    let merges: Vec<_> = gh
        .calls()
        .into_iter()
        .filter(|c| c.path.ends_with("/merge"))
        .map(|c| (c.token.unwrap_or_default(), c.status))
        .collect();
    assert_eq!(
        merges,
        [
            (WORKFLOW_TOKEN.to_string(), 403),
            (RELEASE_TOKEN.to_string(), 409),
            (RELEASE_TOKEN.to_string(), 200),
            (RELEASE_TOKEN.to_string(), 405),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_head_pushed_between_the_read_and_the_merge_is_a_409() {
    let gh = FakeGitHub::start().await;
    gh.pr(7).head("feature/x", SHA);
    let release = client(&gh, RELEASE_TOKEN);
    let read = get_json(&release, "/pulls/7").await;
    let head = read["head"]["sha"].as_str().unwrap().to_string();
    gh.push_before_merge(7, NEXT);

    let moved = release
        .send_json(
            "merging",
            Method::PUT,
            &repo("/pulls/7/merge"),
            &json!({"sha": head}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(moved, ApiError::Rejected { status: 409, .. }),
        "{moved}"
    );
    let pr = gh.pr_state(7);
    assert_eq!(pr.head_sha, NEXT);
    assert!(!pr.merged);
    assert_eq!(gh.branch_head("feature/x").as_deref(), Some(NEXT));
}

#[tokio::test(flavor = "multi_thread")]
async fn mergeable_states_decide_405_and_the_repository_decides_the_method() {
    let gh = FakeGitHub::start().await;
    let release = client(&gh, RELEASE_TOKEN);
    let states = [
        ("dirty", 405),
        ("blocked", 405),
        ("behind", 405),
        ("draft", 405),
        ("unstable", 200),
        ("has_hooks", 200),
        ("clean", 200),
    ];
    for (n, (state, expected)) in (10..).zip(states) {
        gh.pr(n).mergeable_state(state);
        let status = match release
            .send_json(
                "merging",
                Method::PUT,
                &repo(&format!("/pulls/{n}/merge")),
                &json!({}),
            )
            .await
        {
            Ok(reply) => reply.status.as_u16(),
            Err(ApiError::Rejected { status, .. }) => status,
            Err(e) => panic!("{state}: {e}"),
        };
        assert_eq!(status, expected, "mergeable_state {state}");
    }
    gh.pr(20).draft();
    gh.allow_merge_methods(&["squash"]);
    gh.pr(21);
    for (n, body, message) in [
        (20, json!({"merge_method": "squash"}), "Pull Request is not mergeable"),
        (21, json!({}), "Merge commits are not allowed on this repository."),
    ] {
        let (status, reply) = raw(
            &gh,
            "PUT",
            &repo(&format!("/pulls/{n}/merge")),
            RELEASE_TOKEN,
            body,
        )
        .await;
        assert_eq!((status, reply["message"].as_str()), (405, Some(message)));
    }
    let (status, _) = raw(
        &gh,
        "PUT",
        &repo("/pulls/21/merge"),
        RELEASE_TOKEN,
        json!({"merge_method": "fast-forward"}),
    )
    .await;
    assert_eq!(status, 422);
}

// ---------------------------------------------------------------------- contents

#[tokio::test(flavor = "multi_thread")]
async fn files_at_a_ref_come_raw_or_as_base64_json_and_404_when_absent() {
    let gh = FakeGitHub::start().await;
    gh.file("develop", "docs/a b.md", "hello\nworld\n");
    let api = client(&gh, WORKFLOW_TOKEN);

    assert_eq!(
        api.get_file("docs/a b.md", Some("develop")).await.unwrap(),
        Some("hello\nworld\n".to_string())
    );
    assert_eq!(api.get_file("docs/a b.md", Some("main")).await.unwrap(), None);
    assert_eq!(api.get_file("nothing.md", Some("develop")).await.unwrap(), None);
    let object = get_json(&api, "/contents/docs/a%20b.md?ref=develop").await;
    assert_eq!(
        (&object["type"], &object["encoding"], &object["path"]),
        (&json!("file"), &json!("base64"), &json!("docs/a b.md"))
    );
    assert_eq!(object["content"], "aGVsbG8Kd29ybGQK\n");

    // The older helpers write the same files.
    gh.policy("main", Some("version: 1\n")).await;
    assert_eq!(
        api.get_file(".github/council.yml", Some("main"))
            .await
            .unwrap()
            .as_deref(),
        Some("version: 1\n")
    );
    gh.policy("main", None).await;
    assert_eq!(
        api.get_file(".github/council.yml", Some("main")).await.unwrap(),
        None
    );
    gh.set_default_policy("version: 1\n");
    assert!(
        api.get_file(".github/council.yml", None)
            .await
            .unwrap()
            .is_some()
    );
}

// -------------------------------------------------------------- tokens and log

#[tokio::test(flavor = "multi_thread")]
async fn tokens_are_401_when_unknown_and_403_without_the_permission() {
    let gh = FakeGitHub::start().await;
    gh.pr(2);

    let (status, body) = raw(&gh, "GET", &repo("/pulls/2"), "ghs_forged", Value::Null).await;
    assert_eq!((status, &body["message"]), (401, &json!("Bad credentials")));
    let unknown = client(&gh, "ghs_forged")
        .get("a PR", &repo("/pulls/2"), None)
        .await
        .unwrap_err();
    assert!(
        matches!(unknown, ApiError::Forbidden { status: 401, .. }),
        "{unknown}"
    );

    // A fork PR's token reads but may not write.
    gh.token(WORKFLOW_TOKEN).read_only();
    let api = client(&gh, WORKFLOW_TOKEN);
    assert_eq!(get_json(&api, "/pulls/2").await["number"], 2);
    let refused = api.create_comment(2, "hello").await.unwrap_err();
    assert!(
        matches!(&refused, ApiError::Forbidden { status: 403, message, .. }
            if message == "Resource not accessible by integration"),
        "{refused}"
    );

    // A user's token that may write issues comments as that user.
    gh.token("ghp_alice").login("alice").grant(Scope::Issues, Access::Write);
    let alice = client(&gh, "ghp_alice");
    assert_eq!(alice.create_comment(2, "hi").await.unwrap().author(), "alice");
    let me: Value = alice.get("who", "/user", None).await.unwrap().json("who").unwrap();
    assert_eq!(me["login"], "alice");
    let app = api.get("who", "/user", None).await.unwrap_err();
    assert!(
        matches!(app, ApiError::Forbidden { status: 403, .. }),
        "an app token has no user: {app}"
    );
    gh.token("ghp_alice").revoke(Scope::Issues);
    let (status, body) = raw(
        &gh,
        "POST",
        &repo("/issues/2/comments"),
        "ghp_alice",
        json!({"body": "again"}),
    )
    .await;
    assert_eq!(
        (status, &body["message"]),
        (
            403,
            &json!("Resource not accessible by personal access token")
        )
    );

    let tokens: Vec<(String, Option<String>, u16)> = gh
        .calls()
        .into_iter()
        .map(|c| (c.line(), c.token, c.status))
        .filter(|(line, ..)| line.starts_with("POST"))
        .collect();
    assert_eq!(
        tokens,
        [
            (
                format!("POST {}", repo("/issues/2/comments")),
                Some(WORKFLOW_TOKEN.to_string()),
                403
            ),
            (
                format!("POST {}", repo("/issues/2/comments")),
                Some("ghp_alice".to_string()),
                201
            ),
            (
                format!("POST {}", repo("/issues/2/comments")),
                Some("ghp_alice".to_string()),
                403
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_log_tells_which_writes_the_test_has_seen() {
    let gh = FakeGitHub::start().await;
    gh.pr(7);
    let api = client(&gh, WORKFLOW_TOKEN);
    get_json(&api, "/pulls/7").await;
    api.create_comment(7, "ledger").await.unwrap();
    api.send_json(
        "labels",
        Method::POST,
        &repo("/issues/7/labels"),
        &json!({"labels": ["bot-approved"]}),
    )
    .await
    .unwrap();

    assert_eq!(
        gh.call_lines(),
        [
            format!("GET {}", repo("/pulls/7")),
            format!("POST {}", repo("/issues/7/comments")),
            format!("POST {}", repo("/issues/7/labels")),
        ]
    );
    let writes = gh.take_writes();
    assert_eq!(writes.len(), 2);
    assert_eq!(writes[0].body, json!({"body": "ledger"}));
    assert_eq!(writes[1].token.as_deref(), Some(WORKFLOW_TOKEN));
    gh.assert_all_writes_seen();
    assert!(gh.take_writes().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
#[should_panic(expected = "writes the test never looked at")]
async fn an_unseen_write_fails_the_test() {
    let gh = FakeGitHub::start().await;
    gh.pr(7);
    client(&gh, WORKFLOW_TOKEN)
        .create_comment(7, "surprise")
        .await
        .unwrap();
    gh.assert_all_writes_seen();
}

// ------------------------------------------------------------------ fault drills

#[tokio::test(flavor = "multi_thread")]
async fn queued_faults_answer_the_next_requests_then_the_world_does() {
    let gh = FakeGitHub::start().await;
    gh.pr(7);
    let api = client(&gh, WORKFLOW_TOKEN);
    let statuses = |gh: &FakeGitHub| -> Vec<u16> { gh.calls().iter().map(|c| c.status).collect() };

    gh.fail_next("GET", "/pulls/7", 2, Fault::bad_gateway());
    assert_eq!(get_json(&api, "/pulls/7").await["number"], 7);
    assert_eq!(statuses(&gh), [502, 502, 200], "retried through the outage");

    gh.fail_next("GET", "/pulls/7", 1, Fault::rate_limited(1));
    let started = Instant::now();
    get_json(&api, "/pulls/7").await;
    assert!(started.elapsed() >= Duration::from_secs(1), "Retry-After");
    assert_eq!(statuses(&gh)[3..], [429, 200]);

    gh.fail_next("GET", "/pulls/7", 1, Fault::secondary_rate_limit(1));
    get_json(&api, "/pulls/7").await;
    assert_eq!(statuses(&gh)[5..], [403, 200]);

    gh.fail_next("GET", "/pulls/7", 1, Fault::slow(Duration::from_millis(300)));
    let started = Instant::now();
    get_json(&api, "/pulls/7").await;
    assert!(started.elapsed() >= Duration::from_millis(300));

    // Other routes are not touched by a fault.
    gh.fail_next("GET", "/pulls/7/files", 5, Fault::status(500, "boom"));
    assert_eq!(get_json(&api, "/pulls/7").await["number"], 7);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_merge_that_happened_behind_a_502_is_not_mergeable_on_retry() {
    let gh = FakeGitHub::start().await;
    gh.pr(7).head("feature/x", SHA);
    gh.fail_next("PUT", "/pulls/7/merge", 1, Fault::bad_gateway().after_applying());
    let retried = client(&gh, RELEASE_TOKEN)
        .send_json(
            "merging",
            Method::PUT,
            &repo("/pulls/7/merge"),
            &json!({"sha": SHA}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(retried, ApiError::Rejected { status: 405, .. }),
        "{retried}"
    );
    assert!(gh.pr_state(7).merged, "the first attempt merged");
    let statuses: Vec<u16> = gh.calls().iter().map(|c| c.status).collect();
    assert_eq!(statuses, [502, 405]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_comment_deleted_between_read_and_write_is_a_404_on_edit() {
    let gh = FakeGitHub::start().await;
    let id = gh.seed(2, "github-actions[bot]", "ledger");
    gh.delete_comment_after_read(id);
    let api = client(&gh, WORKFLOW_TOKEN);
    let listed = api.list_comments(2).await.unwrap();
    assert_eq!(listed[0].id, id, "the read still saw it");
    let edit = api.update_comment(id, "new").await.unwrap_err();
    assert!(matches!(edit, ApiError::NotFound { .. }), "{edit}");
    assert!(gh.comment_bodies().is_empty());
}

// ----------------------------------------------------------------------- GraphQL

const ROLLUP: &str = "query PullRequestRollup($owner: String!, $repo: String!, $number: Int!) {
  repository(owner: $owner, name: $repo) { pullRequest(number: $number) { mergeStateStatus } }
}";

fn rollup_request(number: u64) -> Value {
    json!({"query": ROLLUP, "variables": {"owner": "Codertocat", "repo": "Hello-World", "number": number}})
}

#[tokio::test(flavor = "multi_thread")]
async fn the_rollup_query_sees_what_rest_sees() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .head("feature/x", SHA)
        .label("bot-approved")
        .mergeable_state("blocked")
        .auto_merge("alice", "squash")
        .review("alice", "APPROVED", SHA)
        .review("alice", "COMMENTED", SHA)
        .review("bob", "APPROVED", SHA)
        .review("bob", "CHANGES_REQUESTED", SHA)
        .check_run("ci", "completed", Some("success"))
        .status("deploy", "pending")
        .own_job(1001, "council");
    let api = client(&gh, WORKFLOW_TOKEN);

    let data: Value = api.graphql("rollup", &rollup_request(7)).await.unwrap();
    let pr = &data["repository"]["pullRequest"];
    assert_eq!(pr["mergeStateStatus"], "BLOCKED");
    assert_eq!(pr["mergeable"], "MERGEABLE");
    assert_eq!(pr["state"], "OPEN");
    assert_eq!(pr["isInMergeQueue"], false);
    assert_eq!(pr["autoMergeRequest"]["mergeMethod"], "SQUASH");
    assert_eq!(pr["headRefOid"], SHA);
    assert_eq!(pr["labels"]["nodes"][0]["name"], "bot-approved");
    let reviews: Vec<(&str, &str)> = pr["latestOpinionatedReviews"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["author"]["login"].as_str().unwrap(),
                r["state"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        reviews,
        [("alice", "APPROVED"), ("bob", "CHANGES_REQUESTED")]
    );
    let rollup = &pr["commits"]["nodes"][0]["commit"]["statusCheckRollup"];
    assert_eq!(rollup["state"], "PENDING");
    assert_eq!(rollup["contexts"]["totalCount"], 3);
    let kinds: Vec<&str> = rollup["contexts"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["__typename"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["CheckRun", "CheckRun", "StatusContext"]);

    // A merge through REST shows in GraphQL.
    gh.pr(7).mergeable_state("clean");
    let merged: Value = client(&gh, RELEASE_TOKEN)
        .send_json("merging", Method::PUT, &repo("/pulls/7/merge"), &json!({}))
        .await
        .unwrap()
        .json("merge")
        .unwrap();
    let data: Value = api.graphql("rollup", &rollup_request(7)).await.unwrap();
    let pr = &data["repository"]["pullRequest"];
    assert_eq!(pr["state"], "MERGED");
    assert_eq!(pr["mergeCommit"]["oid"], merged["sha"]);
    assert_eq!(pr["autoMergeRequest"], Value::Null);

    // A commit nothing reported on has no rollup.
    gh.pr(8).head("feature/y", NEXT);
    let data: Value = api.graphql("rollup", &rollup_request(8)).await.unwrap();
    assert_eq!(
        data["repository"]["pullRequest"]["commits"]["nodes"][0]["commit"]["statusCheckRollup"],
        Value::Null
    );
    let missing = api
        .graphql::<Value>("rollup", &rollup_request(99))
        .await
        .unwrap_err();
    assert!(
        missing.to_string().contains("Could not resolve to a PullRequest"),
        "{missing}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn graphql_dispatches_on_the_operation_and_refuses_unknown_ones() {
    let gh = FakeGitHub::start().await;
    gh.pr(7).mergeable_state("dirty");
    let api = client(&gh, WORKFLOW_TOKEN);

    // `operationName` wins over the text (here an anonymous query).
    let data: Value = api
        .graphql(
            "rollup",
            &json!({
                "operationName": "PullRequestRollup",
                "query": "query($number: Int!) { repository { pullRequest(number: $number) { mergeable } } }",
                "variables": {"number": 7},
            }),
        )
        .await
        .unwrap();
    assert_eq!(data["repository"]["pullRequest"]["mergeable"], "CONFLICTING");

    // The product's anonymous identity query still works.
    let viewer: Value = api
        .graphql(
            "viewer",
            &json!({"query": "query { viewer { login __typename } }"}),
        )
        .await
        .unwrap();
    assert_eq!(
        viewer["viewer"],
        json!({"login": "github-actions", "__typename": "Bot"})
    );

    let unknown = api
        .graphql::<Value>(
            "unknown",
            &json!({"query": "# a comment first\nquery ReleaseFacts { viewer { login } }"}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&unknown, ApiError::Rejected { message, .. } if message.contains("`ReleaseFacts`")),
        "{unknown}"
    );
    // Registered under the product's own name, it answers.
    gh.graphql_operation("ReleaseFacts", graphql::rollup::pull_request);
    let data: Value = api
        .graphql(
            "facts",
            &json!({"query": "query ReleaseFacts($number: Int!) { x }", "variables": {"number": 7}}),
        )
        .await
        .unwrap();
    assert_eq!(data["repository"]["pullRequest"]["number"], 7);

    let operations: Vec<Option<String>> = gh.calls().into_iter().map(|c| c.operation).collect();
    assert_eq!(
        operations,
        [
            Some("PullRequestRollup".to_string()),
            Some("viewer".to_string()),
            Some("ReleaseFacts".to_string()),
            Some("ReleaseFacts".to_string()),
        ]
    );
    // Faults can target an operation by name.
    gh.fail_next("POST", "ReleaseFacts", 1, Fault::status(400, "bad"));
    let failed = api
        .graphql::<Value>(
            "facts",
            &json!({"query": "query ReleaseFacts($number: Int!) { x }", "variables": {"number": 7}}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(failed, ApiError::Rejected { status: 400, .. }),
        "{failed}"
    );
}

const REVERT: &str = "mutation RevertPullRequest($input: RevertPullRequestInput!) {
  revertPullRequest(input: $input) { revertPullRequest { number url } }
}";

#[tokio::test(flavor = "multi_thread")]
async fn the_revert_mutation_opens_a_pull_request_with_the_release_token() {
    let gh = FakeGitHub::start().await;
    gh.pr(7).title("Add login").head("feature/x", SHA).base("develop");
    let release = client(&gh, RELEASE_TOKEN);
    release
        .send_json("merging", Method::PUT, &repo("/pulls/7/merge"), &json!({}))
        .await
        .unwrap();
    let id = gh.pr_state(7).node_id();
    let revert = json!({"query": REVERT, "variables": {"input": {"pullRequestId": id}}});

    let refused = client(&gh, WORKFLOW_TOKEN)
        .graphql::<Value>("revert", &revert)
        .await
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("Resource not accessible by integration"),
        "{refused}"
    );

    let data: Value = release.graphql("revert", &revert).await.unwrap();
    let created = &data["revertPullRequest"]["revertPullRequest"];
    assert_eq!(created["number"], 8);
    let pr = gh.pr_state(8);
    assert_eq!(pr.title, "Revert \"Add login\"");
    assert_eq!(pr.base_ref, "develop");
    assert_eq!(pr.head_ref, "revert-7-feature/x");
    assert_eq!(pr.author, RELEASE_LOGIN);
    assert!(pr.open);
    assert_eq!(
        get_json(&release, "/pulls/8").await["body"],
        format!("Reverts {REPO}#7")
    );
    let writes: Vec<(String, Option<String>)> = gh
        .take_writes()
        .into_iter()
        .map(|c| (c.operation.unwrap_or(c.path), c.token))
        .collect();
    assert_eq!(
        writes,
        [
            (
                repo("/pulls/7/merge"),
                Some(RELEASE_TOKEN.to_string())
            ),
            (
                "RevertPullRequest".to_string(),
                Some(WORKFLOW_TOKEN.to_string())
            ),
            (
                "RevertPullRequest".to_string(),
                Some(RELEASE_TOKEN.to_string())
            ),
        ]
    );
    // An open pull request cannot be reverted.
    let open = gh.pr_state(8).node_id();
    let error = release
        .graphql::<Value>(
            "revert",
            &json!({"query": REVERT, "variables": {"input": {"pullRequestId": open}}}),
        )
        .await
        .unwrap_err();
    assert!(error.to_string().contains("not merged"), "{error}");
}

// ----------------------------------------------------------- with the real binary

#[tokio::test(flavor = "multi_thread")]
async fn the_guard_runs_on_a_pull_request_the_world_made() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .head("feature/devops/PBI-001-login", SHA)
        .base("develop");
    let run = Council::action()
        .api(&gh.uri())
        .event("pull_request", gh.pr_event("opened", 7))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("guard-status"), "PASS");
    assert_eq!(
        gh.call_lines()[0],
        format!("GET {}", repo("/contents/.github/council.yml?ref=develop")),
        "the policy is read at the world's base branch"
    );
    let writes = gh.take_writes();
    assert_eq!(
        writes.iter().map(|c| c.line()).collect::<Vec<_>>(),
        [format!("POST {}", repo("/issues/7/comments"))]
    );
    assert_eq!(writes[0].token.as_deref(), Some(WORKFLOW_TOKEN));
    assert_eq!(gh.comment_bodies().len(), 1, "the ledger comment");
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fork_pull_request_runs_with_a_read_only_token() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .head("feature/devops/PBI-001-login", SHA)
        .base("develop")
        .fork("mallory");
    gh.token(WORKFLOW_TOKEN).read_only();
    let run = Council::action()
        .api(&gh.uri())
        .event("pull_request", gh.pr_event("synchronize", 7))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("guard-status"), "PASS");
    let refused: Vec<u16> = gh.take_writes().iter().map(|c| c.status).collect();
    assert_eq!(refused, [403], "the ledger write is refused, once");
    assert!(
        run.annotations().iter().any(|a| a.contains("403")),
        "the refusal is reported: {:?}",
        run.annotations()
    );
    assert!(gh.comment_bodies().is_empty());
}

// ------------------------------------------------------------------- GitHub's shapes

/// An example answer from GitHub's OpenAPI description (`tests/data/github/`).
fn example(name: &str) -> Value {
    let path = crate::support::data(&format!("github/{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).expect("JSON")
}

/// Keys of GitHub's example that the world's answer lacks, at `at` and one level into
/// the objects named in `nested` (nested users and repositories carry fewer fields).
fn missing(example: &Value, ours: &Value, at: &str, nested: &[&str]) -> Vec<String> {
    let (Some(theirs), Some(mine)) = (example.as_object(), ours.as_object()) else {
        return vec![format!("{at}: not an object")];
    };
    let mut out = Vec::new();
    for (key, value) in theirs {
        match mine.get(key) {
            None => out.push(format!("{at}.{key}")),
            Some(v) if nested.contains(&key.as_str()) => {
                let first = |x: &Value| x.as_array().and_then(|a| a.first()).cloned();
                let (theirs, mine) = match (first(value), first(v)) {
                    (Some(t), Some(m)) => (t, m),
                    _ => (value.clone(), v.clone()),
                };
                out.extend(missing(&theirs, &mine, &format!("{at}.{key}"), &[]));
            }
            Some(_) => {}
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn every_answer_has_the_fields_of_githubs_own_examples() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .head("feature/x", SHA)
        .label("bug")
        .approved_by("alice")
        .file(PrFile::added("src/a.rs", "fn a() {}"))
        .check_run("ci", "completed", Some("success"))
        .status("deploy", "success")
        .own_job(1001, "council");
    gh.file("master", "README.md", "hello\n");
    let api = client(&gh, WORKFLOW_TOKEN);
    let labels = api
        .send_json(
            "labels",
            Method::POST,
            &repo("/issues/7/labels"),
            &json!({"labels": ["bug"]}),
        )
        .await
        .unwrap()
        .json::<Value>("labels")
        .unwrap();
    let answers = [
        ("pull-request", get_json(&api, "/pulls/7").await, &["head", "base"][..]),
        ("pull-request-simple-items", get_json(&api, "/pulls").await, &["head", "base"]),
        ("issue", get_json(&api, "/issues/7").await, &[]),
        ("diff-entry-items", get_json(&api, "/pulls/7/files").await, &[]),
        ("label-items", labels, &[]),
        ("pull-request-review-items", get_json(&api, "/pulls/7/reviews").await, &[]),
        ("check-run-paginated", get_json(&api, &format!("/commits/{SHA}/check-runs")).await, &["check_runs"]),
        ("combined-commit-status", get_json(&api, &format!("/commits/{SHA}/status")).await, &["statuses"]),
        ("job-paginated", get_json(&api, "/actions/runs/1001/jobs").await, &["jobs"]),
        ("content-file", get_json(&api, "/contents/README.md").await, &[]),
    ];
    let mut gaps = Vec::new();
    for (name, ours, nested) in answers {
        let theirs = example(name);
        let (theirs, ours) = match (theirs.as_array(), ours.as_array()) {
            (Some(t), Some(o)) => (t[0].clone(), o[0].clone()),
            _ => (theirs, ours),
        };
        gaps.extend(missing(&theirs, &ours, name, nested));
    }
    let merged: Value = client(&gh, RELEASE_TOKEN)
        .send_json("merging", Method::PUT, &repo("/pulls/7/merge"), &json!({}))
        .await
        .unwrap()
        .json("merge")
        .unwrap();
    gaps.extend(missing(&example("pull-request-merge-result"), &merged, "merge", &[]));
    assert!(gaps.is_empty(), "fields GitHub sends and the world does not:\n{}", gaps.join("\n"));
}
