//! Typed endpoints, one small method per call, each a single request (plus retries).

use http::Method;
use serde::Deserialize;
use serde_json::json;

use super::client::{ApiError, GitHub};

pub use council_protocol::render::text::percent_encode as encode;

/// An issue or pull-request comment, as much of it as the product reads.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Comment {
    pub id: u64,
    #[serde(default)]
    pub body: Option<String>,
    pub user: Option<User>,
    #[serde(default)]
    pub author_association: Option<String>,
    #[serde(default)]
    pub html_url: String,
    #[serde(default)]
    pub created_at: String,
    #[serde(default)]
    pub updated_at: String,
}

impl Comment {
    pub fn author(&self) -> &str {
        self.user.as_ref().map(|u| u.login.as_str()).unwrap_or("")
    }

    pub fn body(&self) -> &str {
        self.body.as_deref().unwrap_or("")
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct User {
    pub login: String,
    #[serde(rename = "type", default)]
    pub kind: String,
}

/// What `assign` reads of the issue it ranks agents for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueInfo {
    pub number: u64,
    pub title: String,
    pub labels: Vec<String>,
    /// Who opened it (trusted for the blocks on it, as the issue's author).
    pub author: String,
}

/// Who the token acts as (`github-actions[bot]` for the default token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub login: String,
}

impl Identity {
    /// Logins compare without letter case, as GitHub's do.
    pub fn is(&self, login: &str) -> bool {
        !login.is_empty() && self.login.eq_ignore_ascii_case(login)
    }
}

/// GraphQL drops the `[bot]` suffix that REST logins (and comment authors) carry; the
/// rule is the protocol's, where the agents' classification compares logins by it.
pub use council_protocol::actors::rest_login;

/// Comment pages read at most (30,000 comments): far beyond any real issue, and a bound
/// on what a hostile `Link` chain can cost.
pub const MAX_COMMENT_PAGES: usize = 300;

impl GitHub {
    /// One file's text at `git_ref` (the default branch when `None`), or `None` when it
    /// does not exist there.
    pub async fn get_file(
        &self,
        path: &str,
        git_ref: Option<&str>,
    ) -> Result<Option<String>, ApiError> {
        let encoded: Vec<String> = path.split('/').map(encode).collect();
        let mut url = self.repo_path(&format!("/contents/{}", encoded.join("/")));
        if let Some(r) = git_ref {
            url.push_str(&format!("?ref={}", encode(r)));
        }
        let at = git_ref.unwrap_or("the default branch");
        match self
            .get(
                &format!("reading {path} at {at}"),
                &url,
                Some("application/vnd.github.raw+json"),
            )
            .await
        {
            Ok(reply) => Ok(Some(file_text(&reply.text()))),
            Err(ApiError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Every comment of an issue or pull request, oldest first (follows `Link: rel="next"`).
    pub async fn list_comments(&self, issue: u64) -> Result<Vec<Comment>, ApiError> {
        let url = self.repo_path(&format!("/issues/{issue}/comments?per_page=100"));
        let pages: Vec<Vec<Comment>> = self
            .get_pages(
                &format!("listing comments of #{issue}"),
                url,
                MAX_COMMENT_PAGES,
            )
            .await?;
        Ok(pages.into_iter().flatten().collect())
    }

    /// Every page from `url` on, following `Link: rel="next"`. A chain longer than
    /// `max_pages`, one that comes back to a page already read, or one that leaves the
    /// API's origin (the token would go with it) is an error, never followed.
    pub async fn get_pages<P: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        url: String,
        max_pages: usize,
    ) -> Result<Vec<P>, ApiError> {
        let (pages, more) = self.get_pages_upto(what, url, max_pages).await?;
        match more {
            false => Ok(pages),
            true => Err(ApiError::Decode {
                what: what.to_string(),
                message: format!(
                    "more than {max_pages} pages; stopped rather than read without end"
                ),
            }),
        }
    }

    /// One page from `url` and the next page's URL, for a caller that decides from each
    /// page whether to read on. A `Link` that leaves the API's origin is an error (the
    /// token would go with it); `seen` holds the pages read so far, so that a chain that
    /// comes back to one is an error too.
    pub async fn get_page<P: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        url: &str,
        seen: &mut std::collections::HashSet<String>,
    ) -> Result<(P, Option<String>), ApiError> {
        seen.insert(self.path_of(url).to_string());
        let reply = self.get(what, url, None).await?;
        let page = reply.json(what)?;
        let next = link(&reply.headers, "next");
        if let Some(next) = &next {
            self.followable(what, next)?;
            if seen.contains(self.path_of(next)) {
                return Err(ApiError::Decode {
                    what: what.to_string(),
                    message: "the `Link` header leads back to a page already read".to_string(),
                });
            }
        }
        Ok((page, next))
    }

    /// A `Link` URL this client may follow: a path, or on the API's own origin (the
    /// token goes wherever it points).
    fn followable(&self, what: &str, url: &str) -> Result<(), ApiError> {
        match url.starts_with('/') || self.is_own_origin(url) {
            true => Ok(()),
            false => Err(ApiError::Decode {
                what: what.to_string(),
                message: "the `Link` header points away from the API's host; not followed"
                    .to_string(),
            }),
        }
    }

    /// The first `max_pages` pages from `url`, and whether the server offered more (for
    /// lists GitHub itself caps, such as a pull request's 3,000 files).
    pub async fn get_pages_upto<P: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        mut url: String,
        max_pages: usize,
    ) -> Result<(Vec<P>, bool), ApiError> {
        let mut pages = Vec::new();
        let mut seen = std::collections::HashSet::new();
        loop {
            let (page, next) = self.get_page(what, &url, &mut seen).await?;
            pages.push(page);
            let Some(next) = next else {
                return Ok((pages, false));
            };
            if pages.len() >= max_pages {
                return Ok((pages, true));
            }
            url = next;
        }
    }

    /// The newest `max_pages` pages of a list GitHub pages oldest first with page numbers
    /// (an issue's timeline), oldest first, and whether they are the whole list. The
    /// first page says how many there are (`Link: rel="last"`); a longer list is read
    /// from `max_pages` before its last page on, so that items anyone can add (comments)
    /// cannot push the newest ones out of reach.
    pub async fn get_newest_pages<P: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        url: String,
        max_pages: usize,
    ) -> Result<(Vec<P>, bool), ApiError> {
        let reply = self.get(what, &url, None).await?;
        let first: P = reply.json(what)?;
        let Some(next) = link(&reply.headers, "next") else {
            return Ok((vec![first], true));
        };
        let last = link(&reply.headers, "last");
        let pages = last.as_deref().and_then(page_number).unwrap_or(0);
        if pages <= max_pages {
            self.followable(what, &next)?;
            let (rest, more) = self
                .get_pages_upto(what, next, max_pages.saturating_sub(1).max(1))
                .await?;
            let mut all = vec![first];
            all.extend(rest);
            return Ok((all, !more));
        }
        let last = last.unwrap_or_default();
        self.followable(what, &last)?;
        let from = with_page(&last, pages + 1 - max_pages);
        let (newest, _) = self.get_pages_upto(what, from, max_pages).await?;
        Ok((newest, false))
    }

    /// An issue's number, title and label names (one request).
    pub async fn issue_info(&self, number: u64) -> Result<IssueInfo, ApiError> {
        #[derive(Deserialize)]
        struct Label {
            name: String,
        }
        #[derive(Deserialize)]
        struct Issue {
            #[serde(default)]
            title: String,
            #[serde(default)]
            labels: Vec<Label>,
            #[serde(default)]
            user: Option<User>,
        }
        let what = format!("reading issue #{number}");
        let issue: Issue = self
            .get(&what, &self.repo_path(&format!("/issues/{number}")), None)
            .await?
            .json(&what)?;
        Ok(IssueInfo {
            number,
            title: issue.title,
            labels: issue.labels.into_iter().map(|l| l.name).collect(),
            author: issue.user.map(|u| u.login).unwrap_or_default(),
        })
    }

    pub async fn get_comment(&self, id: u64) -> Result<Comment, ApiError> {
        let what = format!("reading comment {id}");
        self.get(
            &what,
            &self.repo_path(&format!("/issues/comments/{id}")),
            None,
        )
        .await?
        .json(&what)
    }

    pub async fn create_comment(&self, issue: u64, body: &str) -> Result<Comment, ApiError> {
        let what = format!("commenting on #{issue}");
        let url = self.repo_path(&format!("/issues/{issue}/comments"));
        self.send_json(&what, Method::POST, &url, &json!({ "body": body }))
            .await?
            .json(&what)
    }

    pub async fn update_comment(&self, id: u64, body: &str) -> Result<Comment, ApiError> {
        let what = format!("editing comment {id}");
        let url = self.repo_path(&format!("/issues/comments/{id}"));
        self.send_json(&what, Method::PATCH, &url, &json!({ "body": body }))
            .await?
            .json(&what)
    }

    pub async fn delete_comment(&self, id: u64) -> Result<(), ApiError> {
        let url = self.repo_path(&format!("/issues/comments/{id}"));
        match self.delete(&format!("deleting comment {id}"), &url).await {
            Ok(_) | Err(ApiError::NotFound { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    pub async fn close_pull(&self, number: u64) -> Result<(), ApiError> {
        let url = self.repo_path(&format!("/pulls/{number}"));
        self.send_json(
            &format!("closing pull request #{number}"),
            Method::PATCH,
            &url,
            &json!({ "state": "closed" }),
        )
        .await
        .map(|_| ())
    }

    pub async fn add_label(&self, issue: u64, label: &str) -> Result<(), ApiError> {
        let url = self.repo_path(&format!("/issues/{issue}/labels"));
        self.send_json(
            &format!("labelling #{issue}"),
            Method::POST,
            &url,
            &json!({ "labels": [label] }),
        )
        .await
        .map(|_| ())
    }

    /// 404 when the label is not set (GitHub's answer), which callers take as done.
    pub async fn remove_label(&self, issue: u64, label: &str) -> Result<(), ApiError> {
        let url = self.repo_path(&format!("/issues/{issue}/labels/{}", encode(label)));
        self.delete(&format!("removing a label from #{issue}"), &url)
            .await
            .map(|_| ())
    }

    /// Merges with `sha` as guard (GitHub answers 409 when the head moved); returns the
    /// merge commit's SHA.
    pub async fn merge_pull(
        &self,
        number: u64,
        sha: &str,
        method: council_protocol::policy::MergeMethod,
    ) -> Result<String, ApiError> {
        #[derive(Deserialize)]
        struct Merged {
            #[serde(default)]
            sha: String,
        }
        let what = format!("merging pull request #{number}");
        let url = self.repo_path(&format!("/pulls/{number}/merge"));
        let reply = self
            .send_json(
                &what,
                Method::PUT,
                &url,
                &json!({ "sha": sha, "merge_method": method.as_str() }),
            )
            .await?;
        Ok(reply.json::<Merged>(&what)?.sha)
    }

    /// The token's own login, asked once per run: GraphQL `viewer` (works for app and
    /// Actions tokens), else REST `/user` (user tokens); `None` when neither answers.
    ///
    pub async fn identity(&self) -> Option<Identity> {
        self.identity_cell()
            .get_or_init(|| async {
                let viewer = self.viewer_login().await.ok();
                match viewer {
                    Some(login) => Some(Identity { login }),
                    None => self.rest_user_login().await.map(|login| Identity { login }),
                }
            })
            .await
            .clone()
    }

    async fn viewer_login(&self) -> Result<String, ApiError> {
        #[derive(Deserialize)]
        struct Data {
            viewer: Viewer,
        }
        #[derive(Deserialize)]
        struct Viewer {
            login: String,
            #[serde(rename = "__typename", default)]
            typename: String,
        }
        let data: Data = self
            .graphql(
                "finding the token's identity",
                &json!({ "query": "query { viewer { login __typename } }" }),
            )
            .await?;
        Ok(rest_login(data.viewer.login, &data.viewer.typename))
    }

    async fn rest_user_login(&self) -> Option<String> {
        let reply = self
            .get("finding the token's identity", "/user", None)
            .await
            .ok()?;
        reply.json::<User>("/user").ok().map(|u| u.login)
    }
}

/// The contents API answers the raw file for our `Accept`; a server (or proxy) that sends
/// the JSON object instead still works: base64 `content` is decoded.
fn file_text(body: &str) -> String {
    use base64::Engine as _;
    #[derive(Deserialize)]
    struct Contents {
        content: String,
        encoding: String,
    }
    match serde_json::from_str::<Contents>(body) {
        Ok(c) if c.encoding == "base64" => {
            let compact: String = c.content.chars().filter(|ch| !ch.is_whitespace()).collect();
            base64::engine::general_purpose::STANDARD
                .decode(compact)
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .unwrap_or_else(|| body.to_string())
        }
        _ => body.to_string(),
    }
}

/// The `page` a paged URL asks for.
fn page_number(url: &str) -> Option<usize> {
    let query = url.split_once('?')?.1;
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "page")
        .and_then(|(_, v)| v.parse().ok())
}

/// `url` asking for page `page` instead.
fn with_page(url: &str, page: usize) -> String {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
        if k != "page" {
            out.append_pair(&k, &v);
        }
    }
    out.append_pair("page", &page.to_string());
    format!("{path}?{}", out.finish())
}

/// The URL of one relation in a `Link` header.
pub fn link(headers: &http::HeaderMap, rel: &str) -> Option<String> {
    let value = headers.get(http::header::LINK)?.to_str().ok()?;
    value.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        let wanted = params
            .split(';')
            .any(|p| p.trim() == format!("rel=\"{rel}\""));
        wanted.then(|| {
            url.trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_string()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_read_from_and_written_into_the_query() {
        let last = "https://api.github.com/repositories/1/issues/2/timeline?per_page=100&page=14";
        assert_eq!(page_number(last), Some(14));
        assert_eq!(
            with_page(last, 5),
            "https://api.github.com/repositories/1/issues/2/timeline?per_page=100&page=5"
        );
        assert_eq!(page_number("/x?per_page=100"), None);
        assert_eq!(page_number("/x?page=ten"), None);
        assert_eq!(page_number("/x"), None);
        assert_eq!(with_page("/x", 2), "/x?page=2");
        // Multi-byte text in the query survives the rewrite.
        assert_eq!(
            with_page("/x?q=%C3%A9t%C3%A9&page=1", 3),
            "/x?q=%C3%A9t%C3%A9&page=3"
        );
    }

    #[test]
    fn link_header_relations() {
        let mut h = http::HeaderMap::new();
        h.insert(
            http::header::LINK,
            "<https://api.github.com/repositories/1/issues/2/comments?page=2>; rel=\"next\", \
             <https://api.github.com/repositories/1/issues/2/comments?page=9>; rel=\"last\""
                .parse()
                .unwrap(),
        );
        assert_eq!(
            link(&h, "next").as_deref(),
            Some("https://api.github.com/repositories/1/issues/2/comments?page=2")
        );
        assert_eq!(
            link(&h, "last").as_deref(),
            Some("https://api.github.com/repositories/1/issues/2/comments?page=9")
        );
        assert_eq!(link(&h, "prev"), None);
    }

    #[test]
    fn file_text_accepts_raw_and_json_contents() {
        assert_eq!(file_text("branches: {}\n"), "branches: {}\n");
        let json = r#"{"type":"file","encoding":"base64","content":"dmVyc2lvbjog\nMQo="}"#;
        assert_eq!(file_text(json), "version: 1\n");
    }

    #[test]
    fn encoding_keeps_safe_characters_only() {
        assert_eq!(encode("council.yml"), "council.yml");
        assert_eq!(encode("a b/c?"), "a%20b%2Fc%3F");
        assert_eq!(encode("feature/x"), "feature%2Fx");
    }
}
