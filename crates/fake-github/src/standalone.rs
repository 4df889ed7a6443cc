//! A world served on its own, with no test around it to check its writes: what
//! `fake-github` runs, and what a test running a script against a world file starts.
//! Every request goes to the world (there are no per-test mocks), writes change it for
//! every later request, and nothing is recorded beyond the last [`KEPT_CALLS`] requests,
//! but every request is counted: `GET /_fake/requests` answers the counts
//! ([`REQUESTS_PATH`]).

use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::routes::{WorldResponder, lock};
use crate::world::World;

/// The request log of a long-lived world keeps this many of the latest requests.
pub const KEPT_CALLS: usize = 1_000;

/// The fake's own endpoint, not GitHub's: `GET` answers how many requests the world
/// answered, `{"total": N, "by_route": {"GET /repos/{owner}/{repo}/pulls": n, …}}`;
/// `DELETE` answers the same and starts the counts again from zero (between two runs
/// of a benchmark). Requests to it are not counted, logged or checked for a token.
pub const REQUESTS_PATH: &str = "/_fake/requests";

/// The fake's clock, which completes CI runs (`ci:` in a world file): `POST
/// /_fake/clock?minutes=N` moves it N minutes on, `POST /_fake/clock?ci=finish` until
/// every CI check has completed; both, and `GET`, answer `{"clock": TIME, "completed":
/// N, "ci_runs": N, "pending": N}`. Not counted, logged or checked for a token.
pub const CLOCK_PATH: &str = "/_fake/clock";

pub struct Served {
    pub server: MockServer,
    pub world: Arc<Mutex<World>>,
}

impl Served {
    /// `http://127.0.0.1:<port>`.
    pub fn uri(&self) -> String {
        self.server.uri()
    }
}

/// Serves `world` on `listener` until the returned server is dropped; with `echo`, each
/// request is printed on stderr as it is answered (`GET /repos/… → 200 as login`).
pub async fn serve(mut world: World, listener: TcpListener, echo: bool) -> Served {
    let server = MockServer::builder()
        .listener(listener)
        .disable_request_recording()
        .start()
        .await;
    world.api = server.uri();
    let world = Arc::new(Mutex::new(world));
    Mock::given(any())
        .respond_with(Standalone {
            inner: WorldResponder {
                world: world.clone(),
            },
            echo,
        })
        .mount(&server)
        .await;
    Served { server, world }
}

struct Standalone {
    inner: WorldResponder,
    echo: bool,
}

impl Respond for Standalone {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        if request.url.path() == REQUESTS_PATH {
            return counts(&self.inner.world, request.method.as_str());
        }
        if request.url.path() == CLOCK_PATH {
            return clock(&self.inner.world, request);
        }
        let answer = self.inner.respond(request);
        let mut world = lock(&self.inner.world);
        if self.echo
            && let Some(call) = world.log.last()
        {
            let who = call
                .token
                .as_ref()
                .and_then(|t| world.tokens.get(t))
                .map_or("anonymous", |t| t.login.as_str());
            eprintln!("fake-github: {call} as {who}");
        }
        if world.log.len() > KEPT_CALLS {
            let excess = world.log.len() - KEPT_CALLS;
            world.log.drain(..excess);
        }
        answer
    }
}

/// `GET` or `DELETE /_fake/requests`.
fn counts(world: &Mutex<World>, method: &str) -> ResponseTemplate {
    let mut world = lock(world);
    let counts = match method {
        "GET" => world.counts.clone(),
        "DELETE" => std::mem::take(&mut world.counts),
        _ => {
            return ResponseTemplate::new(405).set_body_json(serde_json::json!({
                "message": format!("{REQUESTS_PATH} answers GET (the counts) and DELETE (the counts, then zero)"),
            }));
        }
    };
    ResponseTemplate::new(200).set_body_json(counts)
}

/// `GET` or `POST /_fake/clock`.
fn clock(world: &Mutex<World>, request: &Request) -> ResponseTemplate {
    let mut world = lock(world);
    let query: Vec<(String, String)> = request.url.query_pairs().into_owned().collect();
    let param = |name: &str| {
        query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let completed = match (request.method.as_str(), param("minutes"), param("ci")) {
        ("GET", None, None) => 0,
        ("POST", Some(minutes), None) => match minutes.parse::<u32>() {
            Ok(minutes) => world.advance_minutes(minutes),
            Err(_) => return refuse(400, "minutes: a whole number of minutes, 0 to 4294967295"),
        },
        ("POST", None, Some("finish")) => world.ci_tick(),
        _ => {
            return refuse(
                400,
                "POST ?minutes=N (the clock moves N minutes on), POST ?ci=finish (until every \
                 CI check has completed), or GET",
            );
        }
    };
    let pending = world
        .commits
        .values()
        .flat_map(|c| &c.check_runs)
        .filter(|r| r.status != "completed")
        .count();
    let now = world.now();
    ResponseTemplate::new(200).set_body_json(serde_json::json!({
        "clock": now,
        "completed": completed,
        "ci_runs": world.ci_runs.len(),
        "pending": pending,
    }))
}

fn refuse(status: u16, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(serde_json::json!({ "message": message }))
}
