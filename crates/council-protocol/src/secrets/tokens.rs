//! Credentials that say what they are: a provider prefix or a fixed shape (`ghp_…`,
//! `AKIA…`, `xoxb-…`, `-----BEGIN … PRIVATE KEY-----`). Each family names the literals
//! every match contains; the scanner runs a family's pattern only on the lines where
//! one of them occurs.

use std::ops::Range;
use std::sync::LazyLock;

use base64::Engine;
use regex::Regex;

use super::decoded::is_sample_jwt;
use super::typed::is_typed_stand_in;
use super::value::{is_stand_in, is_stand_in_token, looks_random};
use super::{SecretKind, floor_char_boundary};

/// What a match must pass besides its pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Check {
    /// Not a stand-in (`…xxxx…`, `EXAMPLE`, one repeated character).
    Shape,
    /// Also random after the prefix: the prefix alone is a common word (`secret_`).
    Random,
    /// A key header counts only when a base64 body follows it.
    KeyBody,
    /// `Bearer <credential>`: the credential must look generated.
    Bearer,
    /// `Basic <base64>`: must decode to `user:password` with a real password.
    Basic,
    /// A JWT: its claims must not be a documentation sample.
    Claims,
}

pub(super) struct TokenRule {
    pub kind: SecretKind,
    /// Literals every match contains, exactly as written.
    pub literals: &'static [&'static str],
    pattern: &'static str,
    check: Check,
}

const fn rule(
    kind: SecretKind,
    literals: &'static [&'static str],
    pattern: &'static str,
    check: Check,
) -> TokenRule {
    TokenRule {
        kind,
        literals,
        pattern,
        check,
    }
}

use Check::{Basic, Bearer, Claims, KeyBody, Random, Shape};
use SecretKind as K;

/// Earlier rules win when two matches overlap (a JWT sent as `Bearer …` is a JWT).
pub(super) static RULES: &[TokenRule] = &[
    // Cloud
    rule(
        K::AwsAccessKeyId,
        &["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
        r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}",
        Shape,
    ),
    rule(
        K::AwsBedrockKey,
        &["ABSK"],
        r"ABSK[A-Za-z0-9+/]{109,269}={0,2}",
        Shape,
    ),
    rule(K::GcpApiKey, &["AIza"], r"AIza[0-9A-Za-z_-]{35}", Shape),
    rule(
        K::AzureAdClientSecret,
        &["Q~"],
        r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
        Shape,
    ),
    rule(
        K::DigitaloceanToken,
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        r"do[opr]_v1_[a-f0-9]{64}",
        Shape,
    ),
    rule(
        K::HerokuApiKey,
        &["HRKU-"],
        r"HRKU-[A-Za-z0-9_-]{60}",
        Shape,
    ),
    rule(
        K::AlibabaAccessKeyId,
        &["LTAI"],
        r"LTAI[A-Za-z0-9]{12,20}",
        Shape,
    ),
    rule(
        K::DatabricksToken,
        &["dapi"],
        r"dapi[a-f0-9]{32}(?:-[0-9])?",
        Shape,
    ),
    rule(
        K::FlyioToken,
        &["fo1_", "fm1a_", "fm1r_", "fm2_"],
        r"fo1_[A-Za-z0-9_-]{43}|fm(?:1[ar]|2)_[A-Za-z0-9+/]{100,}={0,3}",
        Shape,
    ),
    // Source hosting and CI
    rule(
        K::GithubToken,
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        r"gh[pousr]_[A-Za-z0-9]{36,251}",
        Shape,
    ),
    rule(
        K::GithubFineGrainedToken,
        &["github_pat_"],
        r"github_pat_[A-Za-z0-9_]{60,244}",
        Shape,
    ),
    rule(
        K::GitlabToken,
        &[
            "glpat-",
            "gldt-",
            "glft-",
            "glrt-",
            "glsoat-",
            "glcbt-",
            "glimt-",
            "glagent-",
            "glffct-",
            "gloas-",
            "glptt-",
            "GR1348941",
        ],
        r"gl(?:pat|dt|ft|rt|soat|cbt|imt|agent|ffct|oas|ptt)-[A-Za-z0-9_-]{20,300}(?:\.[A-Za-z0-9]{2}\.?[A-Za-z0-9]{7,})?|GR1348941[A-Za-z0-9_-]{20,}",
        Shape,
    ),
    rule(
        K::BitbucketToken,
        &["ATBB"],
        r"ATBB[A-Za-z0-9_=-]{28,64}",
        Shape,
    ),
    rule(
        K::AtlassianToken,
        &["ATATT3", "ATCTT3"],
        r"AT[AC]TT3[A-Za-z0-9_=-]{150,220}",
        Shape,
    ),
    rule(
        K::SonarToken,
        &["squ_", "sqp_", "sqa_"],
        r"sq[upa]_[a-f0-9]{40}",
        Shape,
    ),
    rule(
        K::SourcegraphToken,
        &["sgp_"],
        r"sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}",
        Shape,
    ),
    // Chat
    rule(
        K::SlackToken,
        &["xox"],
        r"xox[bpe]-[0-9]{8,14}-[A-Za-z0-9-]{16,}|xox[os]-[0-9]+-[A-Za-z0-9-]{20,}|xox[ar]-(?:[0-9]-)?[A-Za-z0-9-]{10,}|xoxe(?:\.xox[bp])?-[0-9]-[A-Za-z0-9]{100,}",
        Shape,
    ),
    rule(
        K::SlackAppToken,
        &["xapp-"],
        r"xapp-[0-9]-[A-Za-z0-9]{6,14}-[0-9]{8,16}-[A-Za-z0-9]{32,80}",
        Shape,
    ),
    rule(
        K::SlackWebhook,
        &["hooks.slack.com"],
        r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{40,}",
        Shape,
    ),
    rule(
        K::DiscordWebhook,
        &["discord.com/api/webhooks/", "discordapp.com/api/webhooks/"],
        r"(?:https?://)?(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,80}",
        Shape,
    ),
    rule(
        K::TelegramBotToken,
        &[":AA"],
        // `api.telegram.org/bot<token>/…` glues the token to `bot`.
        r"(?:bot)?[0-9]{8,10}:AA[A-Za-z0-9_-]{33}",
        Shape,
    ),
    rule(
        K::TeamsWebhook,
        &["webhook.office.com", "outlook.office.com/webhook"],
        r"https://[A-Za-z0-9.-]*(?:webhook\.office\.com/webhookb2|outlook\.office\.com/webhook)/[A-Za-z0-9-]{36}@[A-Za-z0-9-]{36}/IncomingWebhook/[A-Za-z0-9]{32}/[A-Za-z0-9-]{36}(?:/[A-Za-z0-9_-]+)?",
        Shape,
    ),
    // Payments
    rule(
        K::StripeKey,
        &[
            "sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_", "whsec_",
        ],
        r"[sr]k_(?:live|test|prod)_[A-Za-z0-9]{16,247}|whsec_[A-Za-z0-9+/=]{32,}",
        Shape,
    ),
    rule(
        K::SquareToken,
        &["sq0atp-", "sq0csp-", "EAAA"],
        r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,60}|EAAA[A-Za-z0-9_-]{60}",
        Shape,
    ),
    rule(
        K::ShopifyToken,
        &["shpat_", "shpca_", "shppa_", "shpss_"],
        r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        Shape,
    ),
    rule(
        K::BraintreeToken,
        &["access_token$"],
        r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}",
        Shape,
    ),
    rule(
        K::PlaidToken,
        &[
            "access-sandbox-",
            "access-development-",
            "access-production-",
        ],
        r"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        Shape,
    ),
    rule(
        K::FacebookToken,
        &["EAAB", "EAAC", "EAAD", "EAAG", "EAAM", "EAAU"],
        r"EAA[BCDGMU][A-Za-z0-9]{90,}",
        Shape,
    ),
    rule(
        K::FlutterwaveKey,
        &["FLWSECK"],
        r"FLWSECK(?:_TEST)?-[a-hA-H0-9]{12,32}(?:-X)?",
        Shape,
    ),
    // Package registries
    rule(K::NpmToken, &["npm_"], r"npm_[A-Za-z0-9]{36}", Shape),
    rule(
        K::PypiToken,
        &["pypi-AgE"],
        r"pypi-AgE[A-Za-z0-9_-]{50,}",
        Shape,
    ),
    rule(
        K::RubygemsToken,
        &["rubygems_"],
        r"rubygems_[a-f0-9]{48}",
        Shape,
    ),
    rule(K::NugetApiKey, &["oy2"], r"oy2[a-z0-9]{43}", Shape),
    rule(
        K::DockerHubToken,
        &["dckr_pat_", "dckr_oat_"],
        r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}",
        Shape,
    ),
    rule(
        K::ArtifactoryToken,
        &["AKCp", "cmVmd"],
        r"AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59}",
        Shape,
    ),
    rule(
        K::ClojarsToken,
        &["CLOJARS_"],
        r"CLOJARS_[a-z0-9]{60}",
        Shape,
    ),
    // AI
    rule(
        K::OpenaiKey,
        &["T3BlbkFJ", "sk-proj-", "sk-svcacct-", "sk-admin-"],
        r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,200}T3BlbkFJ[A-Za-z0-9_-]{20,200}|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,250}",
        Shape,
    ),
    rule(
        K::AnthropicKey,
        &["sk-ant-"],
        r"sk-ant-(?:api|admin|sid)[0-9]{2}-[A-Za-z0-9_-]{80,120}",
        Shape,
    ),
    rule(
        K::HuggingfaceToken,
        &["hf_", "api_org_"],
        r"(?:hf|api_org)_[A-Za-z0-9]{34}",
        Shape,
    ),
    rule(K::PerplexityKey, &["pplx-"], r"pplx-[A-Za-z0-9]{48}", Shape),
    rule(K::GroqKey, &["gsk_"], r"gsk_[A-Za-z0-9]{52}", Shape),
    rule(K::ReplicateToken, &["r8_"], r"r8_[A-Za-z0-9]{37}", Shape),
    // Other services
    rule(
        K::SendgridKey,
        &["SG."],
        r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
        Shape,
    ),
    rule(K::TwilioKey, &["SK"], r"SK[0-9a-fA-F]{32}", Shape),
    rule(
        K::MailchimpKey,
        &["-us"],
        r"[0-9a-f]{32}-us[0-9]{1,2}",
        Shape,
    ),
    rule(
        K::SendinblueKey,
        &["xkeysib-", "xsmtpsib-"],
        r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}",
        Shape,
    ),
    rule(
        K::NewRelicKey,
        &["NRAK-", "NRJS-", "NRII-"],
        r"NRAK-[A-Z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[A-Za-z0-9_-]{32}",
        Shape,
    ),
    rule(
        K::SentryToken,
        &["sntryu_", "sntrys_"],
        r"sntryu_[a-f0-9]{64}|sntrys_eyJ[A-Za-z0-9+/=_]{60,}",
        Shape,
    ),
    rule(
        K::GrafanaToken,
        &["glsa_", "glc_", "eyJrIjoi"],
        r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,3}|eyJrIjoi[A-Za-z0-9]{70,400}={0,3}",
        Shape,
    ),
    rule(
        K::DynatraceToken,
        &["dt0c01."],
        r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}",
        Shape,
    ),
    rule(
        K::PostmanKey,
        &["PMAK-"],
        r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
        Shape,
    ),
    rule(
        K::LinearKey,
        &["lin_api_", "lin_oauth_"],
        r"lin_api_[A-Za-z0-9]{40}|lin_oauth_[a-f0-9]{64}",
        Shape,
    ),
    rule(
        K::NotionToken,
        &["ntn_", "secret_"],
        r"ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}",
        Random,
    ),
    rule(
        K::DopplerToken,
        &[
            "dp.pt.",
            "dp.st.",
            "dp.sa.",
            "dp.ct.",
            "dp.scim.",
            "dp.audit.",
        ],
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}",
        Shape,
    ),
    rule(
        K::VaultToken,
        &["hvs.", "hvb.", "hvr."],
        r"hv[sbr]\.[A-Za-z0-9_-]{24,300}",
        Random,
    ),
    rule(
        K::TerraformToken,
        &[".atlasv1."],
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
        Shape,
    ),
    rule(K::PulumiToken, &["pul-"], r"pul-[a-f0-9]{40}", Shape),
    rule(K::PrefectToken, &["pnu_"], r"pnu_[A-Za-z0-9]{36}", Shape),
    rule(
        K::PlanetscaleToken,
        &["pscale_tkn_", "pscale_oauth_", "pscale_pw_"],
        r"pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}",
        Shape,
    ),
    rule(
        K::OnePasswordToken,
        &["ops_eyJ", "A3-"],
        r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
        Shape,
    ),
    rule(
        K::EasypostKey,
        &["EZAK", "EZTK"],
        r"EZ[AT]K[A-Za-z0-9]{54}",
        Shape,
    ),
    rule(
        K::DuffelToken,
        &["duffel_test_", "duffel_live_"],
        r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}",
        Shape,
    ),
    rule(K::ReadmeKey, &["rdme_"], r"rdme_[a-z0-9]{70}", Shape),
    rule(
        K::TypeformToken,
        &["tfp_"],
        r"tfp_[A-Za-z0-9_.=-]{59}",
        Shape,
    ),
    rule(K::InfracostKey, &["ico-"], r"ico-[A-Za-z0-9]{32}", Shape),
    rule(K::OctopusKey, &["API-"], r"API-[A-Z0-9]{26}", Random),
    rule(
        K::OpenshiftToken,
        &["sha256~"],
        r"sha256~[A-Za-z0-9_-]{43}",
        Shape,
    ),
    rule(
        K::ShippoToken,
        &["shippo_live_", "shippo_test_"],
        r"shippo_(?:live|test)_[a-fA-F0-9]{40}",
        Shape,
    ),
    rule(
        K::MapboxToken,
        &["sk.eyJ"],
        r"sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
        Shape,
    ),
    rule(
        K::ScalingoToken,
        &["tk-us-"],
        r"tk-us-[A-Za-z0-9_-]{48}",
        Shape,
    ),
    rule(
        K::FrameioToken,
        &["fio-u-"],
        r"fio-u-[A-Za-z0-9_=-]{64}",
        Shape,
    ),
    rule(
        K::AdobeClientSecret,
        &["p8e-"],
        r"p8e-[A-Za-z0-9]{32}",
        Random,
    ),
    // Generic shapes
    rule(
        K::AgeSecretKey,
        &["AGE-SECRET-KEY-1"],
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        Shape,
    ),
    rule(
        K::Jwt,
        &["eyJ"],
        r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
        Claims,
    ),
    rule(
        K::PrivateKey,
        &["-----BEGIN"],
        r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----",
        KeyBody,
    ),
    rule(
        K::AuthorizationHeader,
        &["Bearer ", "bearer ", "BEARER "],
        r"(?:Bearer|bearer|BEARER)[ \t]+(?P<secret>[A-Za-z0-9._~+/-]{20,}=*)",
        Bearer,
    ),
    rule(
        K::AuthorizationHeader,
        &["Authorization", "authorization", "AUTHORIZATION"],
        r#"(?:Authorization|authorization|AUTHORIZATION)["']?[ \t]*[:=,][ \t]*["']?(?:(?:Token|token|Api-Token)[ \t]+)?(?P<secret>[A-Za-z0-9._~+/=-]{16,})"#,
        Bearer,
    ),
    rule(
        K::AuthorizationHeader,
        &["Basic ", "basic ", "BASIC "],
        r"(?:Basic|basic|BASIC)[ \t]+(?P<secret>[A-Za-z0-9+/]{12,}={0,2})",
        Basic,
    ),
];

/// The rules' patterns, compiled once, in the order of `RULES`.
pub(super) static PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    RULES
        .iter()
        .map(|r| Regex::new(r.pattern).expect("token patterns are constant and valid"))
        .collect()
});

/// A key body after the header: base64 lines, possibly after PEM headers
/// (`Proc-Type: …`), escaped newlines (`\n` in JSON) or string concatenation.
static KEY_BODY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"^(?:\s|\\[nr]|["'+,|])*(?:(?:Proc-Type|DEK-Info|Version|Comment):[^\n\\]*(?:\n|\\n)(?:\s|\\[nr])*)*[A-Za-z0-9+/]{40}"#,
    )
    .expect("the key body pattern is constant and valid")
});

/// How far past a key header its end marker is looked for (an RSA-4096 key is ~3.3 KB).
const KEY_SPAN: usize = 16 * 1024;

/// Every match of rule `index` in `line` (a range of `text`) that passes its checks.
pub(super) fn find_in_line(
    index: usize,
    text: &str,
    line: Range<usize>,
    found: &mut Vec<(usize, Range<usize>)>,
) {
    let (Some(rule), Some(pattern), Some(haystack)) = (
        RULES.get(index),
        PATTERNS.get(index),
        text.get(line.clone()),
    ) else {
        return;
    };
    let mut push = |m: regex::Match| {
        let range = line.start + m.start()..line.start + m.end();
        if let Some(range) = accept(rule, text, range) {
            found.push((index, range));
        }
    };
    // Capture groups are costly: only the rules that report part of their match use them.
    if pattern.captures_len() > 1 {
        pattern
            .captures_iter(haystack)
            .filter_map(|c| c.name("secret"))
            .for_each(&mut push);
    } else {
        pattern.find_iter(haystack).for_each(&mut push);
    }
}

/// The range to report when the match is a credential, `None` when it is not.
fn accept(rule: &TokenRule, text: &str, range: Range<usize>) -> Option<Range<usize>> {
    if !stands_alone(text, &range) {
        return None;
    }
    let matched = text.get(range.clone())?;
    let prefix = rule
        .literals
        .iter()
        .filter(|l| matched.starts_with(**l))
        .map(|l| l.len())
        .max()
        .unwrap_or(0);
    match rule.check {
        KeyBody => key_block_end(text, range.end).map(|end| range.start..end),
        _ if is_stand_in_token(matched, prefix) => None,
        Shape => Some(range),
        Random => looks_random(matched.get(prefix..)?).then_some(range),
        // A documentation JWT sent as a bearer token is still the documentation's.
        Bearer => {
            (looks_random(matched.get(prefix..)?) && !is_sample_jwt(matched)).then_some(range)
        }
        Basic => is_basic_credential(matched).then_some(range),
        Claims => (!is_sample_jwt(matched)).then_some(range),
    }
}

/// Tokens glued to a longer word (`xghp_…`, `…AKIA…` inside base64, `file.ico-…`)
/// are not tokens, nor is the start of a masked one (`xoxp-1234-…-####`).
fn stands_alone(text: &str, range: &Range<usize>) -> bool {
    let before = text.get(..range.start).and_then(|s| s.chars().next_back());
    let after = text.get(range.end..).and_then(|s| s.chars().next());
    !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.')
        && !after.is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '*' | '#' | '…'))
}

/// Where the key block that starts before `header_end` ends: its end marker, else the
/// end of its first body line; `None` when no base64 body follows (a header in code or
/// docs, `-----BEGIN PRIVATE KEY-----\nanything`).
fn key_block_end(text: &str, header_end: usize) -> Option<usize> {
    let rest = text.get(header_end..)?;
    let tail = rest.get(..floor_char_boundary(rest, KEY_SPAN))?;
    let body = KEY_BODY.find(tail)?;
    let end = tail
        .find("-----END")
        .and_then(|at| {
            tail.get(at + 8..)?
                .find("-----")
                .map(|close| at + 8 + close + 5)
        })
        .unwrap_or(body.end());
    Some(header_end + end)
}

/// `Basic dXNlcjpwYXNz`: base64 of `user:password`, the password a real one.
fn is_basic_credential(credential: &str) -> bool {
    let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(credential) else {
        return false;
    };
    let Ok(decoded) = String::from_utf8(decoded) else {
        return false;
    };
    decoded.split_once(':').is_some_and(|(user, password)| {
        !user.is_empty()
            && password.len() >= 3
            && !password.chars().any(char::is_control)
            && !is_stand_in(password)
            && !is_typed_stand_in(password)
            && !matches!(
                password.to_ascii_lowercase().as_str(),
                "password" | "pass" | "secret"
            )
    })
}
