//! Accounts GitHub names differently in REST and GraphQL. The author of a Copilot coding
//! agent pull request is `Copilot` (type `Bot`) in REST, while GraphQL's `Bot.login` for
//! the same account is `copilot-swe-agent` (the app `copilot-swe-agent`); an app's REST
//! login otherwise ends in `[bot]`, which GraphQL leaves out.

/// REST login → GraphQL `Bot.login`, for the accounts whose names differ beyond `[bot]`.
const ALIASES: [(&str, &str); 1] = [("Copilot", "copilot-swe-agent")];

/// GraphQL's login for a REST login GitHub writes otherwise there.
pub fn graphql_login(rest: &str) -> Option<&'static str> {
    ALIASES
        .iter()
        .find(|(r, _)| r.eq_ignore_ascii_case(rest))
        .map(|(_, g)| *g)
}

/// An app's account (a `Bot`): `…[bot]`, or one of the aliases.
pub fn is_app(login: &str) -> bool {
    login.ends_with("[bot]") || graphql_login(login).is_some()
}
