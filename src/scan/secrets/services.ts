// Work tools, observability and identity services: the keys of the SaaS a codebase talks to.
// Each format as the provider documents it.

import type { DetectionRule } from '../detect.ts';
import { UUID_SECRET_WORDS, contextual, minBits, secretRule, token } from './rule.ts';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

export const SERVICE_RULES: readonly DetectionRule[] = [
  // Work tools.
  token({
    id: 'notion-integration-token',
    type: 'NOTION_TOKEN',
    prefix: 'ntn_',
    body: '[0-9]{11}[A-Za-z0-9]{35}',
  }),
  token({
    id: 'notion-legacy-integration-token',
    type: 'NOTION_TOKEN',
    prefix: 'secret_',
    body: '[A-Za-z0-9]{43}',
    confidence: 0.85,
  }),
  token({ id: 'linear-api-key', type: 'LINEAR_KEY', prefix: 'lin_api_', body: '[A-Za-z0-9]{40}' }),
  token({ id: 'linear-oauth-token', type: 'LINEAR_TOKEN', prefix: 'lin_oauth_', body: '[a-f0-9]{64}' }),
  token({
    id: 'figma-personal-access-token',
    type: 'FIGMA_TOKEN',
    prefix: 'figd_',
    body: '[A-Za-z0-9_-]{40}',
  }),
  token({ id: 'clickup-api-token', type: 'CLICKUP_TOKEN', prefix: 'pk_', body: '\\d{6,10}_[A-Z0-9]{32}' }),
  token({ id: 'postman-api-key', type: 'POSTMAN_KEY', prefix: 'PMAK-', body: '[a-f0-9]{24}-[a-f0-9]{34}' }),
  token({
    id: 'typeform-personal-token',
    type: 'TYPEFORM_TOKEN',
    prefix: 'tfp_',
    body: '[A-Za-z0-9_-]{44}_[A-Za-z0-9_-]{14}',
  }),
  token({
    id: 'contentful-personal-access-token',
    type: 'CONTENTFUL_TOKEN',
    prefix: 'CFPAT-',
    body: '[A-Za-z0-9_-]{43}',
  }),
  token({
    id: 'hubspot-private-app-token',
    type: 'HUBSPOT_TOKEN',
    prefix: 'pat-',
    body: `(?:na|eu|ap)\\d-${UUID}`,
  }),
  contextual({
    id: 'asana-personal-access-token',
    type: 'ASANA_TOKEN',
    names: ['asana'],
    value: '\\d/\\d{10,20}(?:/\\d{10,20})?:[a-f0-9]{32}',
    confidence: 0.85,
  }),
  contextual({
    id: 'trello-api-token',
    type: 'TRELLO_TOKEN',
    names: ['trello'],
    value: '(?:ATTA)?[a-f0-9]{64}',
  }),
  contextual({
    id: 'zendesk-api-token',
    type: 'ZENDESK_TOKEN',
    names: ['zendesk'],
    value: '[A-Za-z0-9]{40}',
    check: minBits(4),
  }),
  contextual({
    id: 'salesforce-access-token',
    type: 'SALESFORCE_TOKEN',
    names: ['salesforce', 'sfdc', 'sf_'],
    value: '00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,120}',
    confidence: 0.85,
  }),
  token({
    id: 'dropbox-short-lived-token',
    type: 'DROPBOX_TOKEN',
    prefix: 'sl.',
    body: '(?:u\\.)?[A-Za-z0-9_-]{130,1400}',
    confidence: 0.85,
  }),
  token({
    id: 'frameio-developer-token',
    type: 'FRAMEIO_TOKEN',
    prefix: 'fio-u-',
    body: '[A-Za-z0-9_=-]{64}',
  }),
  token({
    id: 'mapbox-secret-token',
    type: 'MAPBOX_TOKEN',
    prefix: 'sk.eyJ',
    body: '[A-Za-z0-9_-]{50,200}\\.[A-Za-z0-9_-]{20,40}',
  }),
  token({ id: 'infracost-api-key', type: 'INFRACOST_KEY', prefix: 'ico-', body: '[A-Za-z0-9]{32}' }),
  contextual({
    id: 'facebook-access-token',
    type: 'FACEBOOK_TOKEN',
    names: ['facebook', 'fb_', 'meta_', 'instagram', 'whatsapp'],
    value: 'EAA[A-Za-z0-9]{90,400}',
    confidence: 0.85,
  }),
  contextual({
    id: 'facebook-app-secret',
    type: 'FACEBOOK_SECRET',
    names: ['facebook', 'fb_app', 'meta_app'],
    secretWord: 'secret',
    value: '[a-f0-9]{32}',
  }),
  contextual({
    id: 'twitter-bearer-token',
    type: 'TWITTER_TOKEN',
    names: ['twitter', 'bearer_token', 'x_bearer'],
    value: 'A{22}[A-Za-z0-9%]{60,140}',
    confidence: 0.85,
  }),
  contextual({
    id: 'twitter-api-secret',
    type: 'TWITTER_SECRET',
    names: ['twitter', 'consumer_secret', 'access_token_secret'],
    secretWord: 'secret',
    value: '[A-Za-z0-9]{45,50}',
  }),
  contextual({
    id: 'algolia-admin-key',
    type: 'ALGOLIA_KEY',
    names: ['algolia'],
    secretWord: 'admin|write|secret',
    value: '[a-f0-9]{32}',
  }),
  contextual({
    id: 'segment-write-key',
    type: 'SEGMENT_KEY',
    names: ['segment'],
    secretWord: 'key|token',
    value: '[A-Za-z0-9]{32}',
    check: minBits(4),
  }),

  // Observability.
  contextual({
    id: 'datadog-api-key',
    type: 'DATADOG_KEY',
    names: ['datadog', 'dd_api', 'dd-api', 'ddapi'],
    value: '[a-f0-9]{32}',
  }),
  contextual({
    id: 'datadog-application-key',
    type: 'DATADOG_KEY',
    names: ['datadog', 'dd_app', 'dd-app'],
    value: '[a-f0-9]{40}',
  }),
  token({ id: 'new-relic-user-key', type: 'NEW_RELIC_KEY', prefix: 'NRAK-', body: '[A-Z0-9]{27}' }),
  token({ id: 'new-relic-insert-key', type: 'NEW_RELIC_KEY', prefix: 'NRII-', body: '[A-Za-z0-9_-]{32}' }),
  token({
    id: 'new-relic-browser-key',
    type: 'NEW_RELIC_KEY',
    prefix: 'NRJS-',
    body: '[a-f0-9]{19}',
    confidence: 0.8,
  }),
  token({
    id: 'new-relic-license-key',
    type: 'NEW_RELIC_KEY',
    prefix: '',
    body: '[a-f0-9]{36}NRAL',
    keywords: ['nral'],
  }),
  token({
    id: 'grafana-cloud-token',
    type: 'GRAFANA_TOKEN',
    prefix: 'glc_',
    body: '[A-Za-z0-9+/]{32,400}={0,2}',
  }),
  token({
    id: 'grafana-service-account-token',
    type: 'GRAFANA_TOKEN',
    prefix: 'glsa_',
    body: '[A-Za-z0-9]{32}_[a-f0-9]{8}',
  }),
  token({
    id: 'sentry-organization-token',
    type: 'SENTRY_TOKEN',
    prefix: 'sntrys_',
    body: 'eyJ[A-Za-z0-9+/=_-]{60,400}',
  }),
  token({ id: 'sentry-user-token', type: 'SENTRY_TOKEN', prefix: 'sntryu_', body: '[a-f0-9]{64}' }),
  token({
    id: 'dynatrace-api-token',
    type: 'DYNATRACE_TOKEN',
    prefix: 'dt0c01.',
    body: '[A-Z0-9]{24}\\.[A-Z0-9]{64}',
  }),
  token({ id: 'posthog-personal-api-key', type: 'POSTHOG_KEY', prefix: 'phx_', body: '[A-Za-z0-9]{43}' }),
  contextual({
    id: 'honeycomb-api-key',
    type: 'HONEYCOMB_KEY',
    names: ['honeycomb'],
    value: '[A-Za-z0-9]{22}|hc[a-z]{2}_[a-z0-9]{58}',
    check: minBits(3.8),
  }),
  contextual({
    id: 'splunk-hec-token',
    type: 'SPLUNK_TOKEN',
    names: ['splunk'],
    secretWord: UUID_SECRET_WORDS,
    value: UUID,
  }),
  contextual({
    id: 'pagerduty-api-key',
    type: 'PAGERDUTY_KEY',
    names: ['pagerduty'],
    value: '[A-Za-z0-9_+-]{20}',
    check: minBits(3.5),
  }),
  contextual({
    id: 'launchdarkly-sdk-key',
    type: 'LAUNCHDARKLY_KEY',
    names: ['launchdarkly', 'ld_sdk'],
    value: `(?:sdk|api|mob)-${UUID}`,
    confidence: 0.85,
  }),

  // Identity and secrets managers.
  contextual({ id: 'okta-api-token', type: 'OKTA_TOKEN', names: ['okta'], value: '00[A-Za-z0-9_-]{40}' }),
  contextual({
    id: 'auth0-client-secret',
    type: 'AUTH0_SECRET',
    names: ['auth0'],
    secretWord: 'secret',
    value: '[A-Za-z0-9_-]{64}',
  }),
  token({
    id: 'onepassword-service-account-token',
    type: 'ONEPASSWORD_TOKEN',
    prefix: 'ops_eyJ',
    body: '[A-Za-z0-9+/=_-]{100,1200}',
  }),
  token({
    id: 'onepassword-secret-key',
    type: 'ONEPASSWORD_KEY',
    prefix: 'A3-',
    body: '[A-Z0-9]{6}-(?:[A-Z0-9]{6}|[A-Z0-9]{11})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}',
  }),
  token({
    id: 'age-secret-key',
    type: 'AGE_KEY',
    prefix: 'AGE-SECRET-KEY-1',
    body: '[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}',
  }),
  // The same key given to a deploy (`RAILS_MASTER_KEY=…` in `.env`, Kamal's secrets, a Dockerfile).
  contextual({
    id: 'rails-master-key-variable',
    type: 'RAILS_MASTER_KEY',
    names: ['rails_master_key'],
    value: '[0-9a-f]{32}(?:[0-9a-f]{32})?',
    check: minBits(3),
  }),
  // Rails's key to its encrypted credentials: `config/master.key`, or one environment's
  // `config/credentials/production.key`, holds the hex digits of a 128-bit key (256 for a cipher
  // set wider) and nothing else.
  secretRule({
    id: 'rails-master-key',
    type: 'RAILS_MASTER_KEY',
    keywords: [],
    files: /(?:^|\/)(?:master|credentials\/[\w.-]{1,64})\.key$/,
    pattern: /^\s{0,8}(?<value>[0-9a-f]{32}(?:[0-9a-f]{32})?)\s{0,8}$/g,
    confidence: 0.9,
    check: minBits(3),
  }),
];
