// Samples for every secret rule: a line that holds one value of the rule's documented format (a
// true positive) and a line that nearly does and must not match (a near miss). Values are built at
// test time from `{<alphabet><count>}` slots filled with seeded random characters, so no
// credential-looking literal sits in the repository. A missing near miss means: the positive with
// its last slot one character short.

/** Slot alphabets, one letter each. */
export const ALPHABETS: Record<string, string> = {
  a: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  h: '0123456789abcdef',
  H: '0123456789ABCDEF',
  d: '0123456789',
  u: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  l: 'abcdefghijklmnopqrstuvwxyz0123456789',
  b: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
  w: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-',
  L: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
  Z: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567',
  z: 'abcdefghijklmnopqrstuvwxyz234567',
  g: 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L',
  /** WordPress's key generator: letters, digits and marks, no quote or backslash. */
  P: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*()-_ []{}<>~+=,.;:/?|',
};

export type Sample = string | readonly [positive: string, nearMiss: string];

/** mulberry32: a small seeded generator, so every run builds the same samples. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `{a36}`: 36 characters of alphabet `a`. */
export const SLOT = /\{([a-zA-Z])(\d+)\}/g;

/**
 * Fills templates from one seeded generator: `{a36}`-style slots with random characters of their
 * alphabet, `{basic}` with base64 of `deploy:<random>`, and `{{b64:TEXT}}` with base64 of TEXT (its
 * slots filled first).
 */
export function sampleFiller(random: () => number): {
  pick(alphabet: string, count: number): string;
  fill(template: string): string;
} {
  const pick = (alphabet: string, count: number) => {
    let out = '';
    for (let i = 0; i < count; i++) out += alphabet[Math.floor(random() * alphabet.length)];
    return out;
  };
  const fill = (template: string) =>
    template
      .replace('{basic}', () => btoa(`deploy:${pick(ALPHABETS.a!, 16)}`))
      .replace(SLOT, (_, alphabet: string, count: string) => pick(ALPHABETS[alphabet]!, Number(count)))
      .replace(/\{\{b64:([^{}]*)\}\}/g, (_, text: string) => btoa(text));
  return { pick, fill };
}

const U = '{h8}-{h4}-{h4}-{h4}-{h12}';
/** A PEM body: random base64 lines. */
const PEM_BODY = '\n{b64}\n{b64}\n{b64}\n{b40}==\n';

/**
 * The file each rule bound to files by name (`files`) is tried in: its samples mean nothing in
 * another file.
 */
export const SAMPLE_FILES: Record<string, string> = {
  'pgpass-password': 'home/.pgpass',
  'rails-master-key': 'config/master.key',
  'dotnet-settings-key': 'src/Api/appsettings.Production.json',
};

export const SAMPLES: Record<string, Sample> = {
  // cloud
  'aws-access-key-id': ['aws_access_key_id = AKIA{Z16}', 'aws_access_key_id = AKIB{Z16}'],
  'aws-temporary-access-key-id': 'AccessKeyId: ASIA{Z16}',
  'aws-secret-access-key': 'aws_secret_access_key = {b40}',
  'aws-session-token': 'AWS_SESSION_TOKEN={b100}',
  'aws-bedrock-api-key': 'AWS_BEARER_TOKEN_BEDROCK=ABSKQmVkcm9ja0FQSUtleS{b40}',
  'aws-mws-auth-token': `mws_token: amzn.mws.${U}`,
  'google-api-key': 'key=AIza{w35}',
  'google-oauth-client-secret': '"client_secret": "GOCSPX-{w28}"',
  'google-oauth-access-token': 'Authorization: ya29.{w30}',
  'google-oauth-refresh-token': '"refresh_token": "1//0{w40}"',
  'base64-private-key': [
    `tls.key: {{b64:-----BEGIN PRIVATE KEY-----${PEM_BODY}-----END PRIVATE KEY-----\n}}`,
    `tls.crt: {{b64:-----BEGIN CERTIFICATE-----${PEM_BODY}-----END CERTIFICATE-----\n}}`,
  ],
  'gcp-service-account-private-key': [
    '"private_key": "-----BEGIN PRIVATE KEY-----\\n{b64}\\n{b64}\\n-----END PRIVATE KEY-----\\n",',
    '"private_key": "-----BEGIN PRIVATE KEY-----\\n{b30}\\n-----END PRIVATE KEY-----\\n",',
  ],
  'firebase-cloud-messaging-server-key': 'AAAA{w7}:APA91b{w134}',
  'azure-storage-connection-string':
    'DefaultEndpointsProtocol=https;AccountName=store1;AccountKey={b86}==;EndpointSuffix=core.windows.net',
  'azure-storage-account-key': 'AZURE_STORAGE_KEY={b86}==',
  'azure-cosmos-db-connection-string':
    'AccountEndpoint=https://db1.documents.azure.com:443/;AccountKey={b86}==;',
  'azure-service-bus-connection-string':
    'Endpoint=sb://bus-one.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={b43}=',
  'azure-sas-token': [
    'https://a.blob.core.windows.net/c?sv=2022-11-02&ss=b&sp=r&sig={b43}%3D',
    'https://a.blob.core.windows.net/c?ss=b&sp=r&sig={b43}%3D',
  ],
  'azure-ad-client-secret': ['AZURE_CLIENT_SECRET={a3}8Q~{a34}', 'AZURE_CLIENT_SECRET={a3}8Q~{a30}'],
  'azure-function-key': 'x-functions-key: {w54}==',
  'alibaba-access-key-id': 'ALIBABA_CLOUD_ACCESS_KEY_ID=LTAI{a12}',
  'alibaba-access-key-secret': 'ALIBABA_CLOUD_ACCESS_KEY_SECRET={a30}',
  'tencent-cloud-secret-id': 'SecretId: AKID{a32}',
  'tencent-cloud-secret-key': 'TENCENTCLOUD_SECRET_KEY={a32}',
  'ibm-cloud-api-key': 'IBMCLOUD_API_KEY={w44}',
  'yandex-cloud-api-key': 'YC_API_KEY=AQVN{w35}',
  'yandex-cloud-iam-token': 'YC_TOKEN=t1.{w20}.{w86}',
  'scaleway-access-key': 'SCW_ACCESS_KEY=SCW{u17}',
  'scaleway-secret-key': `SCW_SECRET_KEY=${U}`,
  'digitalocean-personal-access-token': 'DIGITALOCEAN_TOKEN=dop_v1_{h64}',
  'digitalocean-oauth-token': 'token: doo_v1_{h64}',
  'digitalocean-refresh-token': 'refresh: dor_v1_{h64}',
  'linode-token': 'LINODE_TOKEN={h64}',
  'vultr-api-key': 'VULTR_API_KEY={u36}',
  'hetzner-cloud-token': 'HCLOUD_TOKEN={a64}',
  'cloudflare-api-token': 'CLOUDFLARE_API_TOKEN={w40}',
  'cloudflare-global-api-key': 'CLOUDFLARE_API_KEY={h37}',
  'cloudflare-scannable-token': 'CLOUDFLARE_API_TOKEN=cfut_{a40}{h8}',
  'cloudflare-origin-ca-key': 'v1.0-{h24}-{h146}',
  'fastly-api-token': 'FASTLY_API_TOKEN={w32}',
  'akamai-edgegrid-token': 'client_token = akab-{l16}-{l16}',
  'heroku-api-key': `HEROKU_API_KEY=${U}`,
  'heroku-platform-key': 'HEROKU_API_KEY=HRKU-{w58}',
  'vercel-token': 'VERCEL_TOKEN={a24}',
  'vercel-prefixed-token': ['VERCEL_TOKEN=vcp_{a48}', 'VERCEL_TOKEN=vcx_{a48}'],
  'netlify-personal-access-token': 'NETLIFY_AUTH_TOKEN=nfp_{a36}',
  'flyio-access-token': 'FLY_API_TOKEN="FlyV1 fm2_{b100}"',
  'render-api-key': 'RENDER_API_KEY=rnd_{a32}',
  'railway-token': `RAILWAY_TOKEN=${U}`,
  'pulumi-access-token': 'PULUMI_ACCESS_TOKEN=pul-{h40}',
  'terraform-cloud-token': 'token = "{a14}.atlasv1.{w60}"',
  'hashicorp-vault-service-token': 'VAULT_TOKEN=hvs.{w24}',
  'hashicorp-vault-batch-token': 'VAULT_TOKEN=hvb.{w24}',
  'hashicorp-vault-recovery-token': 'VAULT_TOKEN=hvr.{w24}',
  'doppler-personal-token': 'DOPPLER_TOKEN=dp.pt.{a40}',
  'doppler-service-token': 'DOPPLER_TOKEN=dp.st.{a40}',
  'doppler-service-account-token': 'DOPPLER_TOKEN=dp.sa.{a40}',
  'doppler-cli-token': 'DOPPLER_TOKEN=dp.ct.{a40}',
  'doppler-scim-token': 'DOPPLER_TOKEN=dp.scim.{a40}',
  'doppler-audit-token': 'DOPPLER_TOKEN=dp.audit.{a40}',
  'tailscale-auth-key': 'TS_AUTHKEY=tskey-auth-{a12}-{a20}',
  'ngrok-auth-token': 'NGROK_AUTHTOKEN={a27}_{a21}',
  'scalingo-api-token': 'SCALINGO_API_TOKEN=tk-us-{w48}',

  // vcs
  'github-personal-access-token': ['GITHUB_TOKEN=ghp_{a36}', 'GITHUB_TOKEN=ghx_{a36}'],
  'github-oauth-access-token': 'token: gho_{a36}',
  'github-user-to-server-token': 'token: ghu_{a36}',
  'github-server-to-server-token': 'token: ghs_{a36}',
  'github-refresh-token': 'refresh_token: ghr_{a36}',
  'github-fine-grained-token': 'GH_TOKEN=github_pat_{a22}_{a59}',
  'github-classic-oauth-secret': 'GITHUB_CLIENT_SECRET={h40}',
  'gitlab-personal-access-token': 'GITLAB_TOKEN=glpat-{w20}',
  'gitlab-deploy-token': 'password: gldt-{w20}',
  'gitlab-pipeline-trigger-token': 'token=glptt-{h40}',
  'gitlab-runner-authentication-token': 'token = "glrt-{w20}"',
  'gitlab-runner-registration-token': 'registration-token GR1348941{w20}',
  'gitlab-ci-job-token': 'CI_JOB_TOKEN=glcbt-{w20}',
  'gitlab-incoming-mail-token': 'glimt-{w25}',
  'gitlab-feature-flags-client-token': 'glffct-{w20}',
  'gitlab-feed-token': 'feed_token=glft-{w20}',
  'gitlab-scim-token': 'glsoat-{w20}',
  'gitlab-oauth-application-secret': 'secret: gloas-{w64}',
  'gitlab-agent-token': 'glagent-{w50}',
  'bitbucket-app-password': 'BITBUCKET_APP_PASSWORD=ATBB{a32}',
  'atlassian-api-token': 'JIRA_API_TOKEN=ATATT3{w180}',
  'atlassian-legacy-api-token': 'JIRA_API_TOKEN=Ab3{a21}',
  'azure-devops-personal-access-token': 'AZURE_DEVOPS_EXT_PAT={z52}',
  'gitea-access-token': 'GITEA_TOKEN={h40}',
  'sourcegraph-access-token': 'SRC_ACCESS_TOKEN=sgp_{h40}',
  'circleci-personal-token': 'CIRCLECI_TOKEN=CCIPAT_{a22}_{h40}',
  'circleci-project-token': 'CIRCLE_TOKEN=CCIPRJ_{a22}_{h40}',
  'travis-ci-token': 'TRAVIS_TOKEN=Ab1{w19}',
  'buildkite-agent-token': 'BUILDKITE_API_TOKEN=bkua_{h40}',
  'sonarqube-user-token': 'SONAR_TOKEN=squ_{h40}',
  'sonarqube-project-token': 'SONAR_TOKEN=sqp_{h40}',
  'sonarqube-analysis-token': 'SONAR_TOKEN=sqa_{h40}',
  'codecov-upload-token': `CODECOV_TOKEN=${U}`,
  'snyk-api-token': `SNYK_TOKEN=${U}`,
  'octopus-deploy-api-key': 'OCTOPUS_API_KEY=API-{u26}',
  'harness-access-token': 'HARNESS_TOKEN=pat.{w22}.{h24}.{a20}',
  'prefect-api-key': 'PREFECT_API_KEY=pnu_{a36}',

  // chat
  'slack-bot-token': 'SLACK_BOT_TOKEN=xoxb-{d11}-{d12}-{a24}',
  'slack-user-token': 'SLACK_USER_TOKEN=xoxp-{d11}-{d11}-{d12}-{h32}',
  'slack-app-token': 'SLACK_APP_TOKEN=xapp-1-A{u10}-{d13}-{h64}',
  'slack-configuration-token': 'token: xoxe.xoxp-1-{a140}',
  'slack-configuration-refresh-token': 'refresh: xoxe-1-{a140}',
  'slack-legacy-token': 'token: xoxs-{d11}-{a20}',
  'slack-webhook-url': 'url: https://hooks.slack.com/services/T{u9}/B{u9}/{a24}',
  'slack-workflow-webhook-url': 'url: https://hooks.slack.com/triggers/T{u9}/A{u9}/{d12}/{a24}',
  'discord-bot-token': 'DISCORD_TOKEN=M{w23}.{w6}.{w27}',
  'discord-webhook-url': 'https://discord.com/api/webhooks/{d18}/{w60}',
  'telegram-bot-token': 'TELEGRAM_BOT_TOKEN={d9}:AA{w33}',
  'microsoft-teams-webhook-url': `https://contoso.webhook.office.com/webhookb2/${U}@${U}/IncomingWebhook/{h32}/${U}`,
  'azure-logic-app-webhook-url':
    'https://prod-01.westus.logic.azure.com:443/workflows/{h32}/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers&sv=1.0&sig={w43}',
  'google-chat-webhook-url': 'https://chat.googleapis.com/v1/spaces/{w11}/messages?key={w39}&token={w43}',
  'zapier-webhook-url': [
    'https://hooks.zapier.com/hooks/catch/{d7}/{l6}/',
    'https://hooks.zapier.com/hooks/catch/{d4}/{l6}/',
  ],
  'mattermost-access-token': 'MATTERMOST_TOKEN={l26}',
  'line-channel-access-token': 'LINE_CHANNEL_ACCESS_TOKEN={b171}',
  'twitch-oauth-token': 'TWITCH_OAUTH=oauth:{l30}',
  'zoom-client-secret': 'ZOOM_CLIENT_SECRET={a32}',
  'intercom-access-token': 'INTERCOM_TOKEN=dG9rOj{w50}',
  'twilio-api-key': 'TWILIO_API_KEY=SK{h32}',
  'twilio-auth-token': 'TWILIO_AUTH_TOKEN={h32}',
  'vonage-api-secret': 'VONAGE_API_SECRET=Ab1{a13}',
  'sendgrid-api-key': 'SENDGRID_API_KEY=SG.{w22}.{w43}',
  'mailgun-api-key': 'MAILGUN_KEY=key-{h32}',
  'mailgun-private-key': 'MAILGUN_API_KEY={h32}-{h8}-{h8}',
  'mailchimp-api-key': ['MAILCHIMP_KEY={h32}-us21', 'MAILCHIMP_KEY={h32}-uk21'],
  'mandrill-api-key': 'MANDRILL_KEY={w22}',
  'postmark-server-token': `POSTMARK_SERVER_TOKEN=${U}`,
  'brevo-api-key': 'BREVO_API_KEY=xkeysib-{h64}-{a16}',
  'brevo-smtp-key': 'SMTP_KEY=xsmtpsib-{h64}-{a16}',
  'resend-api-key': 'RESEND_API_KEY=re_{a8}_{a24}',
  'pusher-app-secret': 'PUSHER_APP_SECRET={h20}',

  // payment
  'stripe-secret-key': ['STRIPE_SECRET_KEY=sk_live_{a24}', 'STRIPE_KEY=pk_live_{a24}'],
  'stripe-restricted-key': 'STRIPE_KEY=rk_live_{a24}',
  'stripe-test-secret-key': 'STRIPE_KEY=sk_test_{a24}',
  'stripe-webhook-secret': 'STRIPE_WEBHOOK_SECRET=whsec_{b32}',
  'square-access-token': 'SQUARE_TOKEN=sq0atp-{w22}',
  'square-oauth-secret': 'SQUARE_SECRET=sq0csp-{w43}',
  'square-production-access-token': 'SQUARE_ACCESS_TOKEN=EAAA{w60}',
  'braintree-access-token': 'BRAINTREE_TOKEN=access_token$production${l16}${h32}',
  'paypal-client-secret': 'PAYPAL_CLIENT_SECRET={w80}',
  'adyen-api-key': 'ADYEN_API_KEY=AQE{w90}',
  'razorpay-key-id': 'RAZORPAY_KEY_ID=rzp_live_{a14}',
  'razorpay-key-secret': 'RAZORPAY_KEY_SECRET={a24}',
  'shopify-access-token': 'SHOPIFY_TOKEN=shpat_{h32}',
  'shopify-custom-app-token': 'SHOPIFY_TOKEN=shpca_{h32}',
  'shopify-private-app-password': 'SHOPIFY_PASSWORD=shppa_{h32}',
  'shopify-shared-secret': 'SHOPIFY_SECRET=shpss_{h32}',
  'plaid-access-token': `PLAID_ACCESS_TOKEN=access-production-{h8}-{h4}-{h4}-{h4}-{h12}`,
  'plaid-secret': 'PLAID_SECRET={h30}',
  'flutterwave-secret-key': ['FLW_SECRET_KEY=FLWSECK-{h32}-X', 'FLW_SECRET_KEY=FLWSECK-{h31}-X'],
  'flutterwave-test-secret-key': [
    'FLW_SECRET_KEY=FLWSECK_TEST-{h32}-X',
    'FLW_SECRET_KEY=FLWSECK_TEST-{h31}-X',
  ],
  'gocardless-access-token': 'GOCARDLESS_ACCESS_TOKEN=live_{w40}',
  'mollie-api-key': 'MOLLIE_API_KEY=live_{a30}',
  'paddle-api-key': 'PADDLE_API_KEY=pdl_live_apikey_{l26}_{a22}_{a3}',
  'duffel-access-token': 'DUFFEL_TOKEN=duffel_live_{w43}',
  'shippo-api-token': 'SHIPPO_TOKEN=shippo_live_{h40}',
  'easypost-api-key': 'EASYPOST_API_KEY=EZAK{l54}',
  'coinbase-api-secret': 'COINBASE_API_SECRET={b86}==',

  // ai
  'openai-api-key': 'OPENAI_API_KEY=sk-{a20}T3BlbkFJ{a20}',
  'openai-project-key': 'OPENAI_API_KEY=sk-proj-{w40}',
  'openai-service-account-key': 'OPENAI_API_KEY=sk-svcacct-{w40}',
  'openai-admin-key': 'OPENAI_ADMIN_KEY=sk-admin-{w40}',
  'anthropic-api-key': ['ANTHROPIC_API_KEY=sk-ant-api03-{w80}', 'ANTHROPIC_API_KEY=sk-ant-api03-{w79}'],
  'anthropic-admin-key': 'ANTHROPIC_ADMIN_KEY=sk-ant-admin01-{w80}',
  'anthropic-oauth-token': 'CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-{w80}',
  'anthropic-refresh-token': 'refresh: sk-ant-ort01-{w80}',
  'huggingface-access-token': 'HF_TOKEN=hf_{a34}',
  'huggingface-organization-token': 'HF_TOKEN=api_org_{a34}',
  'replicate-api-token': 'REPLICATE_API_TOKEN=r8_{a37}',
  'groq-api-key': 'GROQ_API_KEY=gsk_{a52}',
  'perplexity-api-key': 'PPLX_API_KEY=pplx-{a48}',
  'xai-api-key': 'XAI_API_KEY=xai-{a80}',
  'openrouter-api-key': 'OPENROUTER_API_KEY=sk-or-v1-{h64}',
  'langsmith-api-key': 'LANGSMITH_API_KEY=lsv2_pt_{h32}_{h10}',
  'langfuse-secret-key': `LANGFUSE_SECRET_KEY=sk-lf-{h8}-{h4}-{h4}-{h4}-{h12}`,
  'pinecone-api-key': 'PINECONE_API_KEY=pcsk_{a6}_{a60}',
  'nvidia-api-key': 'NVIDIA_API_KEY=nvapi-{w64}',
  'cerebras-api-key': 'CEREBRAS_API_KEY=csk-{l48}',
  'fireworks-api-key': 'FIREWORKS_API_KEY=fw_{a24}',
  'deepseek-api-key': 'DEEPSEEK_API_KEY=sk-{h32}',
  'elevenlabs-api-key': ['ELEVENLABS_API_KEY=sk_{h48}', 'ELEVENLABS_API_KEY=sk_{h31}'],
  'cohere-api-key': 'COHERE_API_KEY={a40}',
  'mistral-api-key': 'MISTRAL_API_KEY={a32}',
  'together-api-key': ['TOGETHER_API_KEY={h64}', 'TOGETHER_API_KEY={h42}'],
  'azure-openai-api-key': 'AZURE_OPENAI_API_KEY={h32}',
  'deepgram-api-key': 'DEEPGRAM_API_KEY={h40}',
  'assemblyai-api-key': 'ASSEMBLYAI_API_KEY={h32}',
  'wandb-api-key': 'WANDB_API_KEY={h40}',
  'wandb-login-key': '    "wandb.login(key=\\"{h40}\\")\\n",',
  'wandb-v1-api-key': ['WANDB_API_KEY=wandb_v1_{w80}', 'WANDB_API_KEY=wandb_v1_{w30}'],
  'stability-api-key': 'STABILITY_API_KEY=sk-{a48}',
  'voyage-api-key': 'VOYAGE_API_KEY=pa-{w43}',

  // registries
  'npm-access-token': ['//registry.npmjs.org/:_authToken=npm_{a36}', 'NPM_TOKEN=npm_{a35}'],
  'npmrc-auth-token': [
    `//registry.npmjs.org/:_authToken={h8}-{h4}-{h4}-{h4}-{h12}`,
    '//registry.npmjs.org/:_authToken={h19}',
  ],
  'npmrc-auth': ['_auth = {b24}=', '_auth = {b7}'],
  'pypi-upload-token': 'password = pypi-AgEIcHlwaS5vcmc{w50}',
  'test-pypi-upload-token': 'password = pypi-AgENdGVzdC5weXBpLm9yZw{w50}',
  'rubygems-api-key': 'GEM_HOST_API_KEY=rubygems_{h48}',
  'nuget-api-key': 'NUGET_API_KEY=oy2{l43}',
  'docker-hub-personal-access-token': 'DOCKERHUB_TOKEN=dckr_pat_{w27}',
  'docker-hub-organization-token': 'DOCKERHUB_TOKEN=dckr_oat_{w27}',
  'crates-io-api-token': 'CARGO_REGISTRY_TOKEN=cio{a32}',
  'clojars-deploy-token': 'CLOJARS_PASSWORD=CLOJARS_{h60}',
  'jfrog-api-key': 'ARTIFACTORY_API_KEY=AKCp{a69}',
  'jfrog-reference-token': 'JFROG_TOKEN=cmVmdGtuOjAxOj{a50}',
  'gradle-plugin-portal-key': 'gradle.publish.key={a32}',
  'hex-pm-api-key': 'HEX_API_KEY={h32}',
  'packagist-api-token': ['PACKAGIST_TOKEN=Ab1{a17}', 'PACKAGIST_TOKEN=Ab1{a16}'],
  'cocoapods-trunk-token': 'COCOAPODS_TRUNK_TOKEN={h32}',
  'readme-api-key': 'README_API_KEY=rdme_{l70}',

  // databases
  'postgres-connection-password': [
    'DATABASE_URL=postgres://app:{a20}@db.internal:5432/app',
    'DATABASE_URL=postgres://app@db.internal:5432/app',
  ],
  'mysql-connection-password': ['mysql://app:{a16}@mysql.internal/app', 'mysql://app@mysql.internal/app'],
  'mongodb-connection-password': [
    'MONGO_URL=mongodb+srv://app:{a16}@cluster0.abcde.mongodb.net/app',
    'MONGO_URL=mongodb+srv://cluster0.abcde.mongodb.net/app',
  ],
  'redis-connection-password': [
    'REDIS_URL=rediss://default:{a16}@cache.internal:6380',
    'REDIS_URL=redis://cache.internal:6379',
  ],
  'amqp-connection-password': ['amqps://app:{a16}@mq.internal/vhost', 'amqps://mq.internal/vhost'],
  'clickhouse-connection-password': [
    'clickhouse://app:{a16}@ch.internal:9000/db',
    'clickhouse://ch.internal:9000/db',
  ],
  'neo4j-connection-password': ['neo4j+s://neo4j:{a16}@graph.internal', 'neo4j+s://graph.internal'],
  'sqlserver-url-password': ['sqlserver://sa:{a16}@sql.internal:1433', 'sqlserver://sql.internal:1433'],
  'snowflake-connection-password': ['snowflake://app:{a16}@acme-xy12345/db', 'snowflake://acme-xy12345/db'],
  'couchdb-connection-password': [
    'couchdb://admin:{a16}@couch.internal:5984',
    'couchdb://couch.internal:5984',
  ],
  'cockroachdb-connection-password': [
    'cockroachdb://app:{a16}@crdb.internal:26257/db',
    'cockroachdb://crdb.internal:26257/db',
  ],
  'mqtt-connection-password': ['mqtts://device:{a16}@broker.internal:8883', 'mqtts://broker.internal:8883'],
  'ldap-bind-password': ['ldaps://cn=admin:{a16}@ldap.internal', 'ldaps://ldap.internal'],
  'ftp-connection-password': ['sftp://deploy:{a16}@files.internal/upload', 'sftp://files.internal/upload'],
  'ado-connection-string-password': [
    'Server=tcp:sql.internal,1433;Database=app;User Id=app;Password={a16};',
    'Server=tcp:sql.internal,1433;Database=app;Integrated Security=true;',
  ],
  'jdbc-url-password': [
    'jdbc:postgresql://db.internal:5432/app?user=app&password={a16}',
    'jdbc:postgresql://db.internal:5432/app?user=app',
  ],
  'oracle-thin-password': [
    'jdbc:oracle:thin:scott/{a16}@db.internal:1521:orcl',
    'jdbc:oracle:thin:@db.internal:1521:orcl',
  ],
  'planetscale-password': 'DATABASE_PASSWORD=pscale_pw_{w32}',
  'planetscale-api-token': 'PLANETSCALE_TOKEN=pscale_tkn_{w32}',
  'planetscale-oauth-token': 'token: pscale_oauth_{w32}',
  'supabase-access-token': 'SUPABASE_ACCESS_TOKEN=sbp_{h40}',
  'supabase-secret-key': 'SUPABASE_SECRET_KEY=sb_secret_{w31}',
  'neon-api-key': 'NEON_API_KEY=napi_{l64}',
  'databricks-access-token': 'DATABRICKS_TOKEN=dapi{h32}',
  'airtable-personal-access-token': 'AIRTABLE_TOKEN=pat{a14}.{h64}',
  'pgpass-password': ['db.internal:5432:orders:orders_app:{a16}', 'db.internal:5432:orders:orders_app:*'],

  // services
  'notion-integration-token': 'NOTION_TOKEN=ntn_{d11}{a35}',
  'notion-legacy-integration-token': 'NOTION_TOKEN=secret_{a43}',
  'linear-api-key': 'LINEAR_API_KEY=lin_api_{a40}',
  'linear-oauth-token': 'token: lin_oauth_{h64}',
  'figma-personal-access-token': 'FIGMA_TOKEN=figd_{w40}',
  'clickup-api-token': 'CLICKUP_TOKEN=pk_{d8}_{u32}',
  'postman-api-key': 'POSTMAN_API_KEY=PMAK-{h24}-{h34}',
  'typeform-personal-token': 'TYPEFORM_TOKEN=tfp_{w44}_{w14}',
  'contentful-personal-access-token': 'CONTENTFUL_TOKEN=CFPAT-{w43}',
  'hubspot-private-app-token': `HUBSPOT_TOKEN=pat-na1-{h8}-{h4}-{h4}-{h4}-{h12}`,
  'asana-personal-access-token': 'ASANA_TOKEN=2/{d16}/{d16}:{h32}',
  'trello-api-token': 'TRELLO_TOKEN=ATTA{h64}',
  'zendesk-api-token': 'ZENDESK_API_TOKEN={a40}',
  'salesforce-access-token': 'SALESFORCE_ACCESS_TOKEN=00D{a15}!{a80}',
  'dropbox-short-lived-token': 'DROPBOX_TOKEN=sl.u.{w130}',
  'frameio-developer-token': 'FRAMEIO_TOKEN=fio-u-{w64}',
  'mapbox-secret-token': ['MAPBOX_TOKEN=sk.eyJ{w50}.{w22}', 'MAPBOX_TOKEN=pk.eyJ{w50}.{w22}'],
  'infracost-api-key': 'INFRACOST_API_KEY=ico-{a32}',
  'facebook-access-token': 'FACEBOOK_ACCESS_TOKEN=EAA{a90}',
  'facebook-app-secret': 'FACEBOOK_APP_SECRET={h32}',
  'twitter-bearer-token': [
    `TWITTER_BEARER_TOKEN=${'A'.repeat(22)}{a80}`,
    `TWITTER_BEARER_TOKEN=${'A'.repeat(22)}{a59}`,
  ],
  'twitter-api-secret': 'TWITTER_API_SECRET={a45}',
  'algolia-admin-key': 'ALGOLIA_ADMIN_KEY={h32}',
  'segment-write-key': 'SEGMENT_WRITE_KEY={a32}',
  'datadog-api-key': 'DD_API_KEY={h32}',
  'datadog-application-key': 'DD_APP_KEY={h40}',
  'new-relic-user-key': 'NEW_RELIC_API_KEY=NRAK-{u27}',
  'new-relic-insert-key': 'NEW_RELIC_INSERT_KEY=NRII-{w32}',
  'new-relic-browser-key': 'key: NRJS-{h19}',
  'new-relic-license-key': ['NEW_RELIC_LICENSE_KEY={h36}NRAL', 'NEW_RELIC_LICENSE_KEY={h35}NRAL'],
  'grafana-cloud-token': 'GRAFANA_TOKEN=glc_{b32}',
  'grafana-service-account-token': 'GRAFANA_TOKEN=glsa_{a32}_{h8}',
  'sentry-organization-token': 'SENTRY_AUTH_TOKEN=sntrys_eyJ{w60}',
  'sentry-user-token': 'SENTRY_AUTH_TOKEN=sntryu_{h64}',
  'dynatrace-api-token': 'DT_API_TOKEN=dt0c01.{u24}.{u64}',
  'posthog-personal-api-key': 'POSTHOG_PERSONAL_API_KEY=phx_{a43}',
  'honeycomb-api-key': 'HONEYCOMB_API_KEY={a22}',
  'splunk-hec-token': `SPLUNK_HEC_TOKEN=${U}`,
  'pagerduty-api-key': 'PAGERDUTY_TOKEN={a20}',
  'launchdarkly-sdk-key': `LAUNCHDARKLY_SDK_KEY=sdk-${U}`,
  'okta-api-token': 'OKTA_API_TOKEN=00{w40}',
  'auth0-client-secret': 'AUTH0_CLIENT_SECRET={w64}',
  'onepassword-service-account-token': 'OP_SERVICE_ACCOUNT_TOKEN=ops_eyJ{w100}',
  'onepassword-secret-key': ['A3-{u6}-{u6}-{u5}-{u5}-{u5}-{u5}', 'A3-{u6}-{u6}-{u5}-{u5}-{u5}-{u4}'],
  'age-secret-key': 'AGE-SECRET-KEY-1{g58}',
  'rails-master-key': '{h32}\n',
  'rails-master-key-variable': 'RAILS_MASTER_KEY={h32}',

  // keys
  'rsa-private-key': [
    `-----BEGIN RSA PRIVATE KEY-----${PEM_BODY}-----END RSA PRIVATE KEY-----`,
    `-----BEGIN RSA PUBLIC KEY-----${PEM_BODY}-----END RSA PUBLIC KEY-----`,
  ],
  'ec-private-key': [
    `-----BEGIN EC PRIVATE KEY-----${PEM_BODY}-----END EC PRIVATE KEY-----`,
    '-----BEGIN EC PRIVATE KEY-----\n...\n-----END EC PRIVATE KEY-----',
  ],
  'dsa-private-key': [
    `-----BEGIN DSA PRIVATE KEY-----${PEM_BODY}-----END DSA PRIVATE KEY-----`,
    `-----BEGIN DSA PARAMETERS-----${PEM_BODY}-----END DSA PARAMETERS-----`,
  ],
  'pkcs8-private-key': [
    `-----BEGIN PRIVATE KEY-----${PEM_BODY}-----END PRIVATE KEY-----`,
    `-----BEGIN PUBLIC KEY-----${PEM_BODY}-----END PUBLIC KEY-----`,
  ],
  'pkcs8-encrypted-private-key': [
    `-----BEGIN ENCRYPTED PRIVATE KEY-----${PEM_BODY}-----END ENCRYPTED PRIVATE KEY-----`,
    `-----BEGIN CERTIFICATE-----${PEM_BODY}-----END CERTIFICATE-----`,
  ],
  'openssh-private-key': [
    `-----BEGIN OPENSSH PRIVATE KEY-----${PEM_BODY}-----END OPENSSH PRIVATE KEY-----`,
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b43} user@host',
  ],
  'pgp-private-key-block': [
    `-----BEGIN PGP PRIVATE KEY BLOCK-----\n${PEM_BODY}-----END PGP PRIVATE KEY BLOCK-----`,
    `-----BEGIN PGP PUBLIC KEY BLOCK-----\n${PEM_BODY}-----END PGP PUBLIC KEY BLOCK-----`,
  ],
  'putty-private-key': [
    'PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: key\nPublic-Lines: 2\n{b64}\n{b20}\nPrivate-Lines: 1\n{b43}=\nPrivate-MAC: {h64}',
    'PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: key\nPublic-Lines: 2\n{b64}\n{b20}\n',
  ],
  'json-web-token': [
    'Authorization: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{w40}.{w43}',
    'Authorization: eyJ{w20}.eyJ{w40}.{w43}',
  ],

  // generic
  'generic-secret-assignment': ['const apiKey = "{a24}";', 'const apiKey = getApiKey(config);'],
  'generic-quoted-password': [
    "export DB_PASSWORD='k9{a6} {a8}'",
    "export DB_PASSWORD='Use {d2} characters or more'",
  ],
  'generic-xml-secret': ['<password>{a20}</password>', '<password>${env.PASSWORD}</password>'],
  'wordpress-auth-key': [
    "define( 'NONCE_SALT',       '{P64}' );",
    "define( 'NONCE_SALT',       'put your unique phrase here' );",
  ],
  'mysql-command-password': [
    'mysql -h db.internal -u app -p{a14} orders',
    'mysql -h db.internal -u app -p orders',
  ],
  'curl-user-password': [
    'curl -u deploy:{a14} https://ci.internal/api/v1/jobs',
    'curl -u "$CI_USER:$CI_TOKEN" https://ci.internal/api/v1/jobs',
  ],
  'docker-login-password': [
    'docker login -u ci -p {a16} registry.internal',
    'docker login -u ci --password-stdin registry.internal',
  ],
  'redis-requirepass': ['requirepass {a16}', 'requirepass foobared'],
  'netrc-password': [
    'machine api.internal\n  login deploy\n  password {a14}',
    'machine api.internal login deploy',
  ],
  'password-hash': 'deploy:$2y$05${a53}',
  'mail-app-password': ['spring.mail.password=ykqv zrhu wmgt fjcx', 'spring.mail.password=mailtrappassword'],
  'dotnet-settings-key': [
    '  "Jwt": { "Key": "{b48}", "Issuer": "https://api.internal" }',
    '  "ApplicationInsights": { "InstrumentationKey": "{b48}" }',
  ],
  'generic-url-password': ['https://deploy:{a16}@git.internal/repo.git', 'https://git.internal/repo.git'],
  // What it encodes holds a secret another rule names (here a PostgreSQL password); a value that
  // holds none is no finding.
  'kubernetes-secret-data': [
    'kind: Secret\ndata:\n  DATABASE_URL: {{b64:postgres://app:{a16}@db.internal:5432/app}}',
    'kind: Secret\ndata:\n  LOG_LEVEL: {{b64:warn-{l8}}}',
  ],
  'generic-bearer-token': ['curl -H "Authorization: Bearer {w40}"', 'Authorization: Bearer <token>'],
  'generic-basic-auth-header': ['Authorization: Basic {basic}', 'Authorization: Basic dXNlcjpwYXNzd29yZA=='],
};
