// Cloud providers and hosting: keys and tokens of AWS, Google Cloud, Azure, other clouds, and the
// platforms apps are deployed and configured on. Each format as the provider documents it.

import type { DetectionRule } from '../detect.ts';
import { UUID_SECRET_WORDS, contextual, minBits, secretRule, token } from './rule.ts';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

export const CLOUD_RULES: readonly DetectionRule[] = [
  // AWS: an access key id is 20 characters, upper case and base32 digits, its first four naming
  // the kind (AKIA long-term, ASIA temporary from STS); its secret is 40 base64 characters with
  // nothing to mark it, so it is found only where a name says what it is.
  token({
    id: 'aws-access-key-id',
    type: 'AWS_ACCESS_KEY',
    prefix: 'AKIA',
    body: '[A-Z2-7]{16}',
    confidence: 0.9,
  }),
  token({
    id: 'aws-temporary-access-key-id',
    type: 'AWS_ACCESS_KEY',
    prefix: 'ASIA',
    body: '[A-Z2-7]{16}',
    confidence: 0.85,
  }),
  contextual({
    id: 'aws-secret-access-key',
    type: 'AWS_SECRET_KEY',
    names: ['aws_secret', 'secret_access_key', 'secretaccesskey'],
    value: '[A-Za-z0-9/+]{40}',
    confidence: 0.85,
    check: minBits(4),
  }),
  contextual({
    id: 'aws-session-token',
    type: 'AWS_SESSION_TOKEN',
    names: ['aws_session_token', 'sessiontoken', 'session_token'],
    value: '[A-Za-z0-9/+]{100,2000}={0,2}',
    confidence: 0.8,
  }),
  // Bedrock long-term API keys: ABSK, then base64 of `BedrockAPIKey-` and the key.
  token({
    id: 'aws-bedrock-api-key',
    type: 'AWS_BEDROCK_KEY',
    prefix: 'ABSKQmVkcm9ja0FQSUtleS',
    body: '[A-Za-z0-9+/]{40,300}={0,2}',
    keywords: ['absk'],
  }),
  token({ id: 'aws-mws-auth-token', type: 'AWS_MWS_TOKEN', prefix: 'amzn.mws.', body: UUID }),

  // Google Cloud and Firebase.
  token({
    id: 'google-api-key',
    type: 'GOOGLE_API_KEY',
    prefix: 'AIza',
    body: '[A-Za-z0-9_-]{35}',
    confidence: 0.9,
  }),
  token({
    id: 'google-oauth-client-secret',
    type: 'GOOGLE_OAUTH_SECRET',
    prefix: 'GOCSPX-',
    body: '[A-Za-z0-9_-]{28}',
  }),
  token({
    id: 'google-oauth-access-token',
    type: 'GOOGLE_OAUTH_TOKEN',
    prefix: 'ya29.',
    body: '[A-Za-z0-9_-]{30,2000}',
    confidence: 0.85,
  }),
  token({
    id: 'google-oauth-refresh-token',
    type: 'GOOGLE_OAUTH_TOKEN',
    prefix: '1//0',
    body: '[A-Za-z0-9_-]{40,500}',
    confidence: 0.7,
  }),
  // A service account's key file is JSON: its private_key is a PKCS #8 PEM with `\n` escapes.
  secretRule({
    id: 'gcp-service-account-private-key',
    type: 'GCP_SERVICE_ACCOUNT_KEY',
    keywords: ['"private_key"'],
    pattern:
      /"private_key"\s{0,40}:\s{0,40}"(?<value>-----BEGIN PRIVATE KEY-----(?:\\n)?[A-Za-z0-9+/=\\]{64,20000}-----END PRIVATE KEY-----(?:\\n)?)"/g,
    // Above the bare PKCS #8 rule, which sees the same key.
    confidence: 0.995,
  }),
  // Firebase Cloud Messaging legacy server key: an instance id, `:APA91b`, then the key.
  token({
    id: 'firebase-cloud-messaging-server-key',
    type: 'FIREBASE_SERVER_KEY',
    prefix: 'AAAA',
    body: '[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{134}',
    keywords: [':apa91b'],
  }),

  // Azure.
  secretRule({
    id: 'azure-storage-connection-string',
    type: 'AZURE_STORAGE_KEY',
    keywords: ['accountkey='],
    pattern:
      /DefaultEndpointsProtocol=https?;AccountName=[a-z0-9]{3,24};AccountKey=(?<value>[A-Za-z0-9+/]{86}==)(?![A-Za-z0-9+/=])/g,
    confidence: 0.97,
  }),
  contextual({
    id: 'azure-storage-account-key',
    type: 'AZURE_STORAGE_KEY',
    names: ['accountkey', 'account_key', 'storage_key', 'storagekey', 'azure_storage'],
    value: '[A-Za-z0-9+/]{86}==',
    confidence: 0.8,
  }),
  secretRule({
    id: 'azure-cosmos-db-connection-string',
    type: 'AZURE_COSMOS_KEY',
    keywords: ['documents.azure.com'],
    pattern:
      /AccountEndpoint=https:\/\/[a-z0-9-]{3,44}\.documents\.azure\.com(?::443)?\/?;AccountKey=(?<value>[A-Za-z0-9+/]{86}==)/g,
    confidence: 0.97,
  }),
  secretRule({
    id: 'azure-service-bus-connection-string',
    type: 'AZURE_SHARED_ACCESS_KEY',
    keywords: ['sharedaccesskey='],
    pattern:
      /Endpoint=sb:\/\/[a-z0-9-]{6,50}\.servicebus\.windows\.net\/?;SharedAccessKeyName=[^;\s"']{1,256};SharedAccessKey=(?<value>[A-Za-z0-9+/]{43}=)/g,
    confidence: 0.97,
  }),
  secretRule({
    id: 'azure-sas-token',
    type: 'AZURE_SAS_TOKEN',
    keywords: ['sig='],
    pattern:
      /[?&]sv=\d{4}-\d{2}-\d{2}&[^\s"'<>]{0,400}?\bsig=(?<value>[A-Za-z0-9%+/]{40,120}(?:%3D|=){0,2})/gi,
    confidence: 0.85,
  }),
  // Microsoft Entra ID (Azure AD) client secrets since 2021: three characters, a digit, `Q~`, then 31 to 34.
  secretRule({
    id: 'azure-ad-client-secret',
    type: 'AZURE_CLIENT_SECRET',
    keywords: ['q~'],
    pattern: /(?<![A-Za-z0-9_~.-])(?<value>[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])/g,
    confidence: 0.85,
    check: minBits(3.5),
  }),
  contextual({
    id: 'azure-function-key',
    type: 'AZURE_FUNCTION_KEY',
    names: ['x-functions-key', 'functions_key', 'function_key', 'functionkey'],
    value: '[A-Za-z0-9_-]{54}==',
    confidence: 0.8,
  }),

  // Other clouds.
  token({
    id: 'alibaba-access-key-id',
    type: 'ALIBABA_ACCESS_KEY',
    prefix: 'LTAI',
    body: '[A-Za-z0-9]{12,20}',
    confidence: 0.85,
  }),
  contextual({
    id: 'alibaba-access-key-secret',
    type: 'ALIBABA_SECRET_KEY',
    names: ['alibaba', 'aliyun', 'alicloud', 'accesskeysecret', 'access_key_secret'],
    value: '[A-Za-z0-9]{30}',
  }),
  token({
    id: 'tencent-cloud-secret-id',
    type: 'TENCENT_SECRET_ID',
    prefix: 'AKID',
    body: '[A-Za-z0-9]{32}',
    confidence: 0.85,
  }),
  contextual({
    id: 'tencent-cloud-secret-key',
    type: 'TENCENT_SECRET_KEY',
    names: ['tencent', 'tccli'],
    value: '[A-Za-z0-9]{32}',
    check: minBits(4),
  }),
  contextual({
    id: 'ibm-cloud-api-key',
    type: 'IBM_CLOUD_KEY',
    names: ['ibm', 'ibmcloud'],
    secretWord: 'key',
    value: '[A-Za-z0-9_-]{44}',
    check: minBits(4),
  }),
  token({
    id: 'yandex-cloud-api-key',
    type: 'YANDEX_API_KEY',
    prefix: 'AQVN',
    body: '[A-Za-z0-9_-]{35,38}',
    confidence: 0.85,
  }),
  token({
    id: 'yandex-cloud-iam-token',
    type: 'YANDEX_IAM_TOKEN',
    prefix: 't1.',
    body: '[A-Z0-9a-z_-]{1,300}={0,2}\\.[A-Z0-9a-z_-]{86}={0,2}',
    confidence: 0.85,
  }),
  token({
    id: 'scaleway-access-key',
    type: 'SCALEWAY_ACCESS_KEY',
    prefix: 'SCW',
    body: '[A-Z0-9]{17}',
    confidence: 0.8,
  }),
  contextual({
    id: 'scaleway-secret-key',
    type: 'SCALEWAY_SECRET_KEY',
    names: ['scw_secret', 'scaleway'],
    secretWord: UUID_SECRET_WORDS,
    value: UUID,
    confidence: 0.8,
  }),
  token({
    id: 'digitalocean-personal-access-token',
    type: 'DIGITALOCEAN_TOKEN',
    prefix: 'dop_v1_',
    body: '[a-f0-9]{64}',
  }),
  token({
    id: 'digitalocean-oauth-token',
    type: 'DIGITALOCEAN_TOKEN',
    prefix: 'doo_v1_',
    body: '[a-f0-9]{64}',
  }),
  token({
    id: 'digitalocean-refresh-token',
    type: 'DIGITALOCEAN_TOKEN',
    prefix: 'dor_v1_',
    body: '[a-f0-9]{64}',
  }),
  contextual({ id: 'linode-token', type: 'LINODE_TOKEN', names: ['linode'], value: '[a-f0-9]{64}' }),
  contextual({ id: 'vultr-api-key', type: 'VULTR_API_KEY', names: ['vultr'], value: '[A-Z0-9]{36}' }),
  contextual({
    id: 'hetzner-cloud-token',
    type: 'HETZNER_TOKEN',
    names: ['hcloud', 'hetzner'],
    value: '[A-Za-z0-9]{64}',
    check: minBits(4),
  }),
  contextual({
    id: 'cloudflare-api-token',
    type: 'CLOUDFLARE_TOKEN',
    names: ['cloudflare', 'cf_api', 'cf-api'],
    secretWord: 'token',
    value: '[A-Za-z0-9_-]{40}',
    check: minBits(4),
  }),
  contextual({
    id: 'cloudflare-global-api-key',
    type: 'CLOUDFLARE_KEY',
    names: ['cloudflare', 'cf_api', 'cf-api', 'x-auth-key'],
    value: '[a-f0-9]{37}',
  }),
  // Cloudflare's scannable format: `cfk_` (global key), `cfut_` (user token) or `cfat_` (account
  // token), 40 base62 characters and an 8-hex-digit checksum (Cloudflare's "Token formats" page).
  token({
    id: 'cloudflare-scannable-token',
    type: 'CLOUDFLARE_TOKEN',
    prefix: 'cf',
    body: '(?:k|ut|at)_[A-Za-z0-9]{40}[a-f0-9]{8}',
    keywords: ['cfk_', 'cfut_', 'cfat_'],
  }),
  token({
    id: 'cloudflare-origin-ca-key',
    type: 'CLOUDFLARE_KEY',
    prefix: 'v1.0-',
    body: '[a-f0-9]{24}-[a-f0-9]{146}',
  }),
  contextual({
    id: 'fastly-api-token',
    type: 'FASTLY_TOKEN',
    names: ['fastly'],
    value: '[A-Za-z0-9_-]{32}',
    check: minBits(3.8),
  }),
  token({
    id: 'akamai-edgegrid-token',
    type: 'AKAMAI_TOKEN',
    prefix: 'akab-',
    body: '[a-z0-9]{16}-[a-z0-9]{16}',
    confidence: 0.9,
  }),

  // Platforms apps are deployed on.
  contextual({
    id: 'heroku-api-key',
    type: 'HEROKU_KEY',
    names: ['heroku'],
    secretWord: UUID_SECRET_WORDS,
    value: UUID,
  }),
  token({
    id: 'heroku-platform-key',
    type: 'HEROKU_KEY',
    prefix: 'HRKU-',
    body: '[A-Za-z0-9_-]{58,64}',
    confidence: 0.9,
  }),
  // Vercel's prefixed credentials: `vcp_` personal, `vci_` integration, `vca_` and `vcr_` app access
  // and refresh tokens, `vck_` API keys (Vercel's changelog, "New token formats and secret scanning").
  token({
    id: 'vercel-prefixed-token',
    type: 'VERCEL_TOKEN',
    prefix: 'vc',
    body: '[pirak]_[A-Za-z0-9]{24,64}',
    keywords: ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'],
    check: minBits(3.8),
  }),
  contextual({
    id: 'vercel-token',
    type: 'VERCEL_TOKEN',
    names: ['vercel'],
    value: '[A-Za-z0-9]{24}',
    check: minBits(3.8),
  }),
  token({
    id: 'netlify-personal-access-token',
    type: 'NETLIFY_TOKEN',
    prefix: 'nfp_',
    body: '[A-Za-z0-9]{36}',
  }),
  token({
    id: 'flyio-access-token',
    type: 'FLYIO_TOKEN',
    prefix: 'FlyV1 fm',
    body: '[12]_[A-Za-z0-9+/=_,-]{100,4000}',
  }),
  token({
    id: 'render-api-key',
    type: 'RENDER_KEY',
    prefix: 'rnd_',
    body: '[A-Za-z0-9]{32}',
    confidence: 0.9,
  }),
  contextual({
    id: 'railway-token',
    type: 'RAILWAY_TOKEN',
    names: ['railway'],
    secretWord: UUID_SECRET_WORDS,
    value: UUID,
  }),
  token({ id: 'pulumi-access-token', type: 'PULUMI_TOKEN', prefix: 'pul-', body: '[a-f0-9]{40}' }),
  token({
    id: 'terraform-cloud-token',
    type: 'TERRAFORM_TOKEN',
    prefix: '',
    body: '[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,70}',
    keywords: ['.atlasv1.'],
  }),
  token({
    id: 'hashicorp-vault-service-token',
    type: 'VAULT_TOKEN',
    prefix: 'hvs.',
    body: '[A-Za-z0-9_-]{24,300}',
  }),
  token({
    id: 'hashicorp-vault-batch-token',
    type: 'VAULT_TOKEN',
    prefix: 'hvb.',
    body: '[A-Za-z0-9_-]{24,300}',
  }),
  token({
    id: 'hashicorp-vault-recovery-token',
    type: 'VAULT_TOKEN',
    prefix: 'hvr.',
    body: '[A-Za-z0-9_-]{24,300}',
  }),
  token({
    id: 'doppler-personal-token',
    type: 'DOPPLER_TOKEN',
    prefix: 'dp.pt.',
    body: '[A-Za-z0-9]{40,44}',
  }),
  token({
    id: 'doppler-service-token',
    type: 'DOPPLER_TOKEN',
    prefix: 'dp.st.',
    body: '(?:[a-z0-9_-]{2,35}\\.)?[A-Za-z0-9]{40,44}',
  }),
  token({
    id: 'doppler-service-account-token',
    type: 'DOPPLER_TOKEN',
    prefix: 'dp.sa.',
    body: '[A-Za-z0-9]{40,44}',
  }),
  token({ id: 'doppler-cli-token', type: 'DOPPLER_TOKEN', prefix: 'dp.ct.', body: '[A-Za-z0-9]{40,44}' }),
  token({ id: 'doppler-scim-token', type: 'DOPPLER_TOKEN', prefix: 'dp.scim.', body: '[A-Za-z0-9]{40,44}' }),
  token({
    id: 'doppler-audit-token',
    type: 'DOPPLER_TOKEN',
    prefix: 'dp.audit.',
    body: '[A-Za-z0-9]{40,44}',
  }),
  token({
    id: 'tailscale-auth-key',
    type: 'TAILSCALE_KEY',
    prefix: 'tskey-',
    body: '(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{10,20}-[A-Za-z0-9]{20,40}',
  }),
  contextual({
    id: 'ngrok-auth-token',
    type: 'NGROK_TOKEN',
    names: ['ngrok'],
    value: '[0-9A-Za-z]{27}_[0-9A-Za-z]{21}',
    confidence: 0.85,
  }),
  token({ id: 'scalingo-api-token', type: 'SCALINGO_TOKEN', prefix: 'tk-us-', body: '[A-Za-z0-9_-]{48}' }),
];
