//! What a finding is: one kind per credential family, with the label users read.

use std::fmt;

use serde::Serialize;

/// Declares the kinds once, so that the enum, its labels and the list of every kind
/// cannot drift apart.
macro_rules! secret_kinds {
    ($($kind:ident => $label:literal,)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum SecretKind {
            $($kind,)*
        }

        impl SecretKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [SecretKind] = &[$(SecretKind::$kind,)*];

            pub fn label(self) -> &'static str {
                match self {
                    $(SecretKind::$kind => $label,)*
                }
            }
        }
    };
}

secret_kinds! {
    // Cloud
    AwsAccessKeyId => "AWS access key ID",
    AwsSecretAccessKey => "AWS secret access key",
    AwsBedrockKey => "Amazon Bedrock API key",
    GcpApiKey => "Google Cloud API key",
    AzureAdClientSecret => "Azure AD client secret",
    AzureStorageKey => "Azure storage account key",
    DigitaloceanToken => "DigitalOcean token",
    HerokuApiKey => "Heroku API key",
    AlibabaAccessKeyId => "Alibaba Cloud access key ID",
    DatabricksToken => "Databricks token",
    FlyioToken => "Fly.io token",
    CloudflareToken => "Cloudflare API token",
    // Source hosting and CI
    GithubToken => "GitHub token",
    GithubFineGrainedToken => "GitHub fine-grained token",
    GitlabToken => "GitLab token",
    BitbucketToken => "Bitbucket secret",
    AtlassianToken => "Atlassian API token",
    SonarToken => "SonarQube token",
    SourcegraphToken => "Sourcegraph token",
    // Chat
    SlackToken => "Slack token",
    SlackAppToken => "Slack app token",
    SlackWebhook => "Slack webhook URL",
    DiscordToken => "Discord token",
    DiscordWebhook => "Discord webhook URL",
    TelegramBotToken => "Telegram bot token",
    TeamsWebhook => "Microsoft Teams webhook URL",
    // Payments
    StripeKey => "Stripe secret key",
    SquareToken => "Square token",
    ShopifyToken => "Shopify token",
    BraintreeToken => "Braintree access token",
    PlaidToken => "Plaid access token",
    FlutterwaveKey => "Flutterwave secret key",
    FacebookToken => "Facebook access token",
    // Package registries
    NpmToken => "npm token",
    PypiToken => "PyPI token",
    RubygemsToken => "RubyGems token",
    NugetApiKey => "NuGet API key",
    DockerHubToken => "Docker Hub token",
    ArtifactoryToken => "JFrog Artifactory token",
    ClojarsToken => "Clojars token",
    // AI
    OpenaiKey => "OpenAI API key",
    AnthropicKey => "Anthropic API key",
    HuggingfaceToken => "Hugging Face token",
    PerplexityKey => "Perplexity API key",
    GroqKey => "Groq API key",
    ReplicateToken => "Replicate token",
    // Other services
    SendgridKey => "SendGrid API key",
    TwilioKey => "Twilio API key",
    MailgunKey => "Mailgun API key",
    MailchimpKey => "Mailchimp API key",
    SendinblueKey => "Brevo (Sendinblue) API key",
    NewRelicKey => "New Relic key",
    DatadogKey => "Datadog API key",
    SentryToken => "Sentry token",
    GrafanaToken => "Grafana token",
    DynatraceToken => "Dynatrace token",
    PostmanKey => "Postman API key",
    LinearKey => "Linear API key",
    NotionToken => "Notion token",
    OktaToken => "Okta API token",
    SnykToken => "Snyk token",
    DopplerToken => "Doppler token",
    VaultToken => "HashiCorp Vault token",
    TerraformToken => "Terraform Cloud token",
    PulumiToken => "Pulumi token",
    PrefectToken => "Prefect token",
    PlanetscaleToken => "PlanetScale token",
    OnePasswordToken => "1Password secret",
    EasypostKey => "EasyPost API key",
    DuffelToken => "Duffel token",
    ReadmeKey => "ReadMe API key",
    TypeformToken => "Typeform token",
    InfracostKey => "Infracost API key",
    OctopusKey => "Octopus Deploy API key",
    OpenshiftToken => "OpenShift token",
    ShippoToken => "Shippo token",
    MapboxToken => "Mapbox secret token",
    ScalingoToken => "Scalingo token",
    FrameioToken => "Frame.io token",
    AdobeClientSecret => "Adobe client secret",
    // Generic
    AgeSecretKey => "age secret key",
    Jwt => "JSON Web Token",
    PrivateKey => "private key",
    AuthorizationHeader => "credential in an Authorization header",
    PasswordAssignment => "password or secret assignment",
}

impl fmt::Display for SecretKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}
