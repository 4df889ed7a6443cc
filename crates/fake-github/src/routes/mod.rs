//! One wiremock responder for the whole world: it parses the request, records it, plays
//! any queued fault or hook, checks the token, and routes to one small function per
//! resource (one file each). Answers use GitHub's REST v3 field names and error bodies.

mod actions;
pub mod checks;
mod comments;
pub mod commits;
mod contents;
mod events;
mod files;
mod issues;
mod labels;
mod merge;
mod merges;
mod pulls;
pub mod refs;
mod reviews;
mod rules;
#[cfg(test)]
mod tests;
mod users;

pub use comments::comment;
pub use pulls::pull_json;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};
use wiremock::{Request, Respond, ResponseTemplate};

use super::faults::{self, When};
use super::graphql;
use super::log::Call;
use super::tokens::{self, Access, Scope, Token};
use super::world::World;

/// What a route answers; `Err` is an answer too (GitHub's error), so `?` reads naturally.
pub type Reply = Result<Answer, Answer>;

#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    body: Body,
    headers: Vec<(String, String)>,
    delay: Option<Duration>,
}

#[derive(Debug, Clone)]
enum Body {
    Json(Value),
    Text(String),
    Bytes(Vec<u8>),
    Empty,
}

impl Answer {
    pub fn json(status: u16, body: Value) -> Answer {
        Answer {
            status,
            body: Body::Json(body),
            headers: Vec::new(),
            delay: None,
        }
    }

    pub fn ok(body: Value) -> Answer {
        Answer::json(200, body)
    }

    /// A 200 with these bytes (an artifact's zip).
    pub fn bytes(content_type: &str, body: Vec<u8>) -> Answer {
        Answer {
            body: Body::Bytes(body),
            ..Answer::json(200, Value::Null)
        }
        .header("content-type", content_type)
    }

    pub fn text(status: u16, body: &str) -> Answer {
        Answer {
            body: Body::Text(body.to_string()),
            ..Answer::json(status, Value::Null)
        }
    }

    pub fn no_content() -> Answer {
        Answer {
            body: Body::Empty,
            ..Answer::json(204, Value::Null)
        }
    }

    /// GitHub's error body: `message`, `documentation_url`, and the status as text.
    pub fn message(status: u16, message: &str) -> Answer {
        Answer::json(
            status,
            json!({
                "message": message,
                "documentation_url": "https://docs.github.com/rest",
                "status": status.to_string(),
            }),
        )
    }

    pub fn not_found() -> Answer {
        Answer::message(404, "Not Found")
    }

    /// 422 with one `errors` entry, as GitHub reports a bad field.
    pub fn invalid(resource: &str, field: &str, code: &str) -> Answer {
        Answer::json(
            422,
            json!({
                "message": "Validation Failed",
                "errors": [{"resource": resource, "field": field, "code": code}],
                "documentation_url": "https://docs.github.com/rest",
                "status": "422",
            }),
        )
    }

    pub fn header(mut self, name: &str, value: &str) -> Answer {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// A header's value, when the answer has it.
    pub fn header_value(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn body_json(&self) -> Option<&Value> {
        match &self.body {
            Body::Json(v) => Some(v),
            _ => None,
        }
    }

    fn into_template(self) -> ResponseTemplate {
        let mut t = ResponseTemplate::new(self.status);
        t = match self.body {
            Body::Json(v) => t.set_body_json(v),
            Body::Text(s) => t.set_body_string(s),
            Body::Bytes(b) => t.set_body_bytes(b),
            Body::Empty => t,
        };
        for (name, value) in &self.headers {
            t = t.insert_header(name.as_str(), value.as_str());
        }
        match self.delay {
            Some(d) => t.set_delay(d),
            None => t,
        }
    }
}

/// A request, parsed once: decoded path segments, query pairs, the token.
pub struct Ctx<'r> {
    pub method: String,
    /// `/path?query` as sent (the log's and the faults' view).
    pub path_query: String,
    pub path: String,
    /// Percent-decoded path segments (`feature%2Fx` is one segment, `feature/x`).
    pub segments: Vec<String>,
    pub query: Vec<(String, String)>,
    pub token: Option<String>,
    pub accept: String,
    pub body: &'r [u8],
}

impl<'r> Ctx<'r> {
    fn parse(req: &'r Request) -> Ctx<'r> {
        let path = req.url.path().to_string();
        let path_query = match req.url.query() {
            Some(q) => format!("{path}?{q}"),
            None => path.clone(),
        };
        let segments = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(|s| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8_lossy()
                    .into_owned()
            })
            .collect();
        let header = |name: &str| {
            req.headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string()
        };
        let authorization = header("authorization");
        let token = authorization
            .strip_prefix("Bearer ")
            .or_else(|| authorization.strip_prefix("token "))
            .map(str::to_string);
        Ctx {
            method: req.method.as_str().to_string(),
            path_query,
            path,
            segments,
            query: req.url.query_pairs().into_owned().collect(),
            token,
            accept: header("accept"),
            body: &req.body,
        }
    }

    pub fn query(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON body; GitHub's 400 when it is not JSON.
    pub fn json(&self) -> Result<Value, Answer> {
        serde_json::from_slice(self.body).map_err(|_| Answer::message(400, "Problems parsing JSON"))
    }

    /// The caller's token entry (`None` for anonymous requests; unknown tokens never get
    /// this far).
    pub fn caller<'w>(&self, world: &'w World) -> Option<&'w Token> {
        self.token.as_ref().and_then(|t| world.tokens.get(t))
    }

    /// The caller's login, for authors of what it writes.
    pub fn login(&self, world: &World) -> String {
        self.caller(world)
            .map(|t| t.login.clone())
            .unwrap_or_default()
    }

    /// At least `access` on one of `scopes`, else GitHub's 401/403.
    pub fn need(&self, world: &World, access: Access, scopes: &[Scope]) -> Result<(), Answer> {
        match (self.caller(world), &self.token) {
            (Some(token), _) if token.may_any(scopes, access) => Ok(()),
            (Some(_), Some(raw)) => Err(Answer::message(403, tokens::forbidden_message(raw))),
            // A public repository answers anonymous reads.
            _ if access == Access::Read => Ok(()),
            _ => Err(Answer::message(401, "Requires authentication")),
        }
    }
}

/// A path segment as a number; anything else is GitHub's 404.
pub fn number(segment: &str) -> Result<u64, Answer> {
    segment.parse().map_err(|_| Answer::not_found())
}

/// One page of `items` (`per_page` default 30, at most 100, `page` from 1) and GitHub's
/// `Link` header (prev, next, last, first) over the world's address, the other query
/// parameters kept.
pub fn paginate<T: Clone + serde::Serialize>(world: &World, ctx: &Ctx, items: &[T]) -> Answer {
    paginate_with(world, ctx, items, |item| json!(item))
}

/// [`paginate`], turning only the page's items into JSON: a list of 10,000 answers in
/// the time of its 100.
pub fn paginate_with<T: Clone>(
    world: &World,
    ctx: &Ctx,
    items: &[T],
    to_json: impl Fn(&T) -> Value,
) -> Answer {
    let (page, link) = page_of(world, ctx, items);
    let answer = Answer::ok(Value::Array(page.iter().map(to_json).collect()));
    match link {
        Some(link) => answer.header("link", &link),
        None => answer,
    }
}

/// A page of a list GitHub wraps in an object (`{"total_count": …, "<key>": [page]}`):
/// `wrapper` holds the other fields, `key` gets the page; same `Link` header.
pub fn paginate_in(
    world: &World,
    ctx: &Ctx,
    items: &[Value],
    mut wrapper: Value,
    key: &str,
) -> Answer {
    let (page, link) = page_of(world, ctx, items);
    wrapper[key] = Value::Array(page);
    let answer = Answer::ok(wrapper);
    match link {
        Some(link) => answer.header("link", &link),
        None => answer,
    }
}

pub fn page_of<T: Clone>(world: &World, ctx: &Ctx, items: &[T]) -> (Vec<T>, Option<String>) {
    let per_page = ctx
        .query("per_page")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(30)
        .clamp(1, 100);
    let page = ctx
        .query("page")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let chunk = items
        .iter()
        .skip((page - 1).saturating_mul(per_page))
        .take(per_page)
        .cloned()
        .collect();
    let last = items.len().div_ceil(per_page).max(1);
    let url = |p: usize| {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &ctx.query {
            if k != "page" && k != "per_page" {
                query.append_pair(k, v);
            }
        }
        query.append_pair("per_page", &per_page.to_string());
        query.append_pair("page", &p.to_string());
        format!("<{}{}?{}>", world.api, ctx.path, query.finish())
    };
    let mut links = Vec::new();
    if page > 1 {
        links.push(format!("{}; rel=\"prev\"", url(page - 1)));
    }
    if page < last {
        links.push(format!("{}; rel=\"next\"", url(page + 1)));
        links.push(format!("{}; rel=\"last\"", url(last)));
    }
    if page > 1 {
        links.push(format!("{}; rel=\"first\"", url(1)));
    }
    (chunk, (!links.is_empty()).then(|| links.join(", ")))
}

/// The world served over HTTP.
pub struct WorldResponder {
    pub world: Arc<Mutex<World>>,
}

impl Respond for WorldResponder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let ctx = Ctx::parse(request);
        let mut world = lock(&self.world);
        serve(&mut world, &ctx).into_template()
    }
}

/// One request served without a server, as the wiremock responder serves it (logged,
/// counted, faults and hooks played): `METHOD /path?query` with `token` and a JSON
/// `body` (`Null`: none). The fake's own tests read the answer directly.
pub fn request(
    world: &mut World,
    method: &str,
    path_query: &str,
    token: Option<&str>,
    body: &Value,
) -> Answer {
    let (path, query) = path_query.split_once('?').unwrap_or((path_query, ""));
    let body = match body {
        Value::Null => Vec::new(),
        body => body.to_string().into_bytes(),
    };
    let ctx = Ctx {
        method: method.to_string(),
        path_query: path_query.to_string(),
        path: path.to_string(),
        segments: path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(|s| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8_lossy()
                    .into_owned()
            })
            .collect(),
        query: url::form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect(),
        token: token.map(str::to_string),
        accept: String::new(),
        body: &body,
    };
    serve(world, &ctx)
}

/// A panicking test must not turn every later request into a poison error.
pub fn lock(world: &Mutex<World>) -> MutexGuard<'_, World> {
    world
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn serve(world: &mut World, ctx: &Ctx) -> Answer {
    let payload = (ctx.path == "/graphql").then(|| ctx.json().unwrap_or(Value::Null));
    let operation = payload.as_ref().and_then(graphql::operation_name);
    let op = operation.as_deref();
    let write = match &payload {
        Some(p) => graphql::is_mutation(p),
        None => !matches!(ctx.method.as_str(), "GET" | "HEAD"),
    };
    let fault = faults::take_fault(world, &ctx.method, &ctx.path_query, op);
    // A fault in front of GitHub (an outage, a rate limit) never reaches the world; a
    // lost reply or a slow one does.
    let reaches_world = fault
        .as_ref()
        .is_none_or(|f| f.replace.is_none() || f.after_applying);
    let mut answer = Answer::not_found();
    if reaches_world {
        faults::run_hook(world, When::Before, &ctx.method, &ctx.path_query, op);
        answer = authenticated(world, ctx).unwrap_or_else(|e| e);
        faults::run_hook(world, When::After, &ctx.method, &ctx.path_query, op);
    }
    if let Some(fault) = &fault {
        if let Some(instead) = &fault.replace {
            answer = Answer::json(instead.status, instead.body.clone());
            answer.headers = instead.headers.clone();
        }
        answer.delay = fault.delay;
    }
    // GitHub dates every answer; the world clock is the fake's "now" (a merge queue's
    // timeout counts by GitHub's clock, not the runner's).
    if answer.header_value("date").is_none() {
        let now = world.clock_now();
        answer = answer.header("date", &http_date(now));
    }
    world
        .counts
        .add(crate::log::route(&ctx.method, &ctx.segments, op));
    world.log.push(Call {
        method: ctx.method.clone(),
        path: ctx.path_query.clone(),
        token: ctx.token.clone(),
        body: serde_json::from_slice(ctx.body).unwrap_or(Value::Null),
        operation,
        write,
        status: answer.status,
    });
    answer
}

/// Every request names a known token or none: an unknown one is GitHub's 401.
fn authenticated(world: &mut World, ctx: &Ctx) -> Reply {
    if let Some(token) = &ctx.token
        && !world.tokens.contains_key(token)
    {
        return Err(Answer::json(
            401,
            json!({
                "message": "Bad credentials",
                "documentation_url": "https://docs.github.com/rest",
                "status": "401",
            }),
        ));
    }
    route(world, ctx)
}

fn route(world: &mut World, ctx: &Ctx) -> Reply {
    let segments: Vec<&str> = ctx.segments.iter().map(String::as_str).collect();
    match (ctx.method.as_str(), segments.as_slice()) {
        ("POST", ["graphql"]) => graphql::serve(world, ctx),
        ("GET", ["user"]) => users::me(world, ctx),
        (_, ["repos", owner, name, rest @ ..]) if format!("{owner}/{name}") == world.repo => {
            repository(world, ctx, rest)
        }
        _ => Err(Answer::not_found()),
    }
}

/// Routes under `/repos/{owner}/{repo}`.
fn repository(world: &mut World, ctx: &Ctx, rest: &[&str]) -> Reply {
    match (ctx.method.as_str(), rest) {
        ("GET", ["pulls"]) => pulls::list(world, ctx),
        ("GET", ["pulls", n]) => pulls::get(world, ctx, number(n)?),
        ("PATCH", ["pulls", n]) => pulls::update(world, ctx, number(n)?),
        ("PUT", ["pulls", n, "merge"]) => merge::merge(world, ctx, number(n)?),
        ("GET", ["pulls", n, "files"]) => files::list(world, ctx, number(n)?),
        ("GET", ["compare", basehead @ ..]) if !basehead.is_empty() => {
            files::compare(world, ctx, &basehead.join("/"))
        }
        ("GET", ["pulls", n, "reviews"]) => reviews::list(world, ctx, number(n)?),
        // A ref may hold slashes (`council/queue/main`), encoded or not.
        ("GET", ["commits", sha @ .., "pulls"]) if !sha.is_empty() => {
            pulls::for_commit(world, ctx, &sha.join("/"))
        }
        ("GET", ["commits", git_ref @ .., "check-runs"]) if !git_ref.is_empty() => {
            checks::runs(world, ctx, &git_ref.join("/"))
        }
        ("GET", ["commits", git_ref @ .., "status"]) if !git_ref.is_empty() => {
            checks::combined(world, ctx, &git_ref.join("/"))
        }
        ("GET", ["commits", git_ref @ ..]) if !git_ref.is_empty() => {
            commits::get(world, ctx, &git_ref.join("/"))
        }
        ("GET", ["pulls", n, "commits"]) => commits::of_pull(world, ctx, number(n)?),
        ("GET", ["git", "commits", sha]) => commits::git_commit(world, ctx, sha),
        ("GET", ["git", "ref", path @ ..]) => refs::get(world, ctx, &path.join("/")),
        ("GET", ["git", "matching-refs", path @ ..]) => refs::matching(world, ctx, &path.join("/")),
        ("POST", ["git", "refs"]) => refs::create(world, ctx),
        ("PATCH", ["git", "refs", path @ ..]) => refs::update(world, ctx, &path.join("/")),
        ("DELETE", ["git", "refs", path @ ..]) => refs::delete(world, ctx, &path.join("/")),
        ("POST", ["merges"]) => merges::merge(world, ctx),
        ("GET", ["issues", n, "events"]) => events::list(world, ctx, number(n)?),
        ("GET", ["issues", n, "timeline"]) => events::timeline(world, ctx, number(n)?),
        ("GET", ["rules", "branches", branch @ ..]) if !branch.is_empty() => {
            rules::for_branch(world, ctx, &branch.join("/"))
        }
        ("GET", ["rulesets", id]) => rules::ruleset(world, ctx, id),
        ("GET", ["actions", "runs", id, "jobs"]) => actions::jobs(world, ctx, number(id)?),
        ("GET", ["actions", "artifacts"]) => actions::artifacts(world, ctx),
        ("GET", ["actions", "artifacts", id, "zip"]) => {
            actions::artifact_zip(world, ctx, number(id)?)
        }
        ("GET", ["contents", path @ ..]) if !path.is_empty() => {
            contents::get(world, ctx, &path.join("/"))
        }
        (_, ["issues", "comments", id]) => comments::one(world, ctx, number(id)?),
        ("GET", ["issues"]) => issues::list(world, ctx),
        ("GET", ["issues", n]) => issues::get(world, ctx, number(n)?),
        ("GET", ["issues", n, "comments"]) => comments::list(world, ctx, number(n)?),
        ("POST", ["issues", n, "comments"]) => comments::create(world, ctx, number(n)?),
        ("POST", ["issues", n, "labels"]) => labels::add(world, ctx, number(n)?),
        ("DELETE", ["issues", n, "labels", name]) => labels::remove(world, ctx, number(n)?, name),
        _ => Err(Answer::not_found()),
    }
}

/// Seconds since 1970 as HTTP writes a date (RFC 7231's IMF-fixdate, always GMT).
pub fn http_date(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .unwrap_or_default()
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string()
}

/// A user object as REST embeds it (`type` tells bots from users).
pub fn user(login: &str) -> Value {
    let sha = super::world::fake_sha(&format!("user {login}"));
    json!({
        "login": login,
        "id": u64::from_str_radix(&sha[..8], 16).unwrap_or(0),
        "type": if crate::accounts::is_app(login) { "Bot" } else { "User" },
    })
}

/// One path segment, percent-encoded for a URL the world hands out.
pub fn encode(segment: &str) -> String {
    percent_encoding::utf8_percent_encode(segment, percent_encoding::NON_ALPHANUMERIC).to_string()
}
