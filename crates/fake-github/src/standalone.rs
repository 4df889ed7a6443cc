//! A world served on its own, with no test around it to check its writes: what
//! `fake-github` runs, and what a test running a script against a world file starts.
//! Every request goes to the world (there are no per-test mocks), writes change it for
//! every later request, and nothing is recorded beyond the last [`KEPT_CALLS`] requests.

use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::routes::{WorldResponder, lock};
use crate::world::World;

/// The request log of a long-lived world keeps this many of the latest requests.
pub const KEPT_CALLS: usize = 1_000;

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
