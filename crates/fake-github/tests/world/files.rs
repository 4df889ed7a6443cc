//! A pull request's files: pages, `Link` relations, the 3,000-file cap, entry shapes.

use council_github::rest::link;
use serde_json::{Value, json};

use super::{client, get_json, repo};
use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::tokens::WORKFLOW_TOKEN;
use council_fake_github::world::PrFile;

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
    assert!(
        next.ends_with("/pulls/7/files?per_page=100&page=2"),
        "{next}"
    );
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
    assert_eq!(files[0]["patch"], "@@ -0,0 +1,2 @@\n+fn a() {}\n+fn b() {}");
    assert_eq!(files[1]["status"], "modified");
    assert_eq!(
        (
            &files[1]["additions"],
            &files[1]["deletions"],
            &files[1]["changes"]
        ),
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
