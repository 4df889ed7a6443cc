//! Labels of an issue or pull request: add (returns the whole list), remove one (404
//! "Label does not exist" when it is not there, as GitHub answers). A change of a pull
//! request's labels updates it (`updated_at`).

use serde_json::{Value, json};

use super::{Answer, Ctx, Reply};
use crate::tokens::{Access, Scope};
use crate::world::{World, fake_sha};

/// `POST /issues/{n}/labels` with `{"labels": ["a", …]}` (or a bare array, or
/// `[{"name": "a"}]`, all of which GitHub accepts).
pub fn add(world: &mut World, ctx: &Ctx, number: u64) -> Reply {
    ctx.need(world, Access::Write, &[Scope::Issues, Scope::PullRequests])?;
    let body = ctx.json()?;
    let list = match &body {
        Value::Array(items) => items,
        Value::Object(o) => match o.get("labels") {
            Some(Value::Array(items)) => items,
            _ => return Err(Answer::invalid("Label", "labels", "missing_field")),
        },
        _ => return Err(Answer::invalid("Label", "labels", "invalid")),
    };
    let mut names = Vec::new();
    for item in list {
        match item.as_str().or_else(|| item["name"].as_str()) {
            Some(name) if !name.trim().is_empty() => names.push(name.to_string()),
            _ => return Err(Answer::invalid("Label", "name", "invalid")),
        }
    }
    let login = ctx.login(world);
    let labels = world.labels_mut(number).ok_or_else(Answer::not_found)?;
    let mut added = Vec::new();
    for name in names {
        // Names compare without case on GitHub: adding `Bug` to `bug` changes nothing.
        if !labels.iter().any(|l| l.eq_ignore_ascii_case(&name)) {
            labels.push(name.clone());
            added.push(name);
        }
    }
    let labels = labels.clone();
    if !added.is_empty() {
        world.touch(number);
        for name in added {
            world.label_event(number, "labeled", &name, &login);
        }
    }
    Ok(Answer::ok(list_json(world, &labels)))
}

/// `DELETE /issues/{n}/labels/{name}`: the labels left.
pub fn remove(world: &mut World, ctx: &Ctx, number: u64, name: &str) -> Reply {
    ctx.need(world, Access::Write, &[Scope::Issues, Scope::PullRequests])?;
    let login = ctx.login(world);
    let labels = world.labels_mut(number).ok_or_else(Answer::not_found)?;
    let removed: Vec<String> = labels
        .iter()
        .filter(|l| l.eq_ignore_ascii_case(name))
        .cloned()
        .collect();
    labels.retain(|l| !l.eq_ignore_ascii_case(name));
    if removed.is_empty() {
        return Err(Answer::json(
            404,
            json!({
                "message": "Label does not exist",
                "documentation_url": "https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue",
                "status": "404",
            }),
        ));
    }
    let labels = labels.clone();
    world.touch(number);
    for name in removed {
        world.label_event(number, "unlabeled", &name, &login);
    }
    Ok(Answer::ok(list_json(world, &labels)))
}

fn list_json(world: &World, labels: &[String]) -> Value {
    Value::Array(labels.iter().map(|l| label_json(world, l)).collect())
}

pub fn label_json(world: &World, name: &str) -> Value {
    let repo = &world.repo;
    let sha = fake_sha(&format!("label {name}"));
    json!({
        "id": u64::from_str_radix(&sha[..8], 16).unwrap_or(0),
        "node_id": format!("LA_kwDOfake{}", &sha[..8]),
        "url": format!("{}/repos/{repo}/labels/{}", world.api, crate::routes::encode(name)),
        "name": name,
        "description": null,
        "color": &sha[..6],
        "default": false,
    })
}
