// Chat, messaging, email and webhooks: bot tokens, app tokens, and webhook addresses that let
// anyone who holds them post. Each format as the provider documents it.

import { notAfter, type DetectionRule } from '../detect.ts';
import { UUID_SECRET_WORDS, contextual, secretRule, token } from './rule.ts';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

export const CHAT_RULES: readonly DetectionRule[] = [
  // Slack: `xox` and a letter for the kind, then team and user numbers and a random part.
  token({
    id: 'slack-bot-token',
    type: 'SLACK_TOKEN',
    prefix: 'xoxb-',
    body: '\\d{8,14}-\\d{8,14}-[A-Za-z0-9]{24}',
  }),
  token({
    id: 'slack-user-token',
    type: 'SLACK_TOKEN',
    prefix: 'xoxp-',
    body: '\\d{8,14}-\\d{8,14}-\\d{8,14}-[a-f0-9]{32}',
  }),
  token({
    id: 'slack-app-token',
    type: 'SLACK_TOKEN',
    prefix: 'xapp-',
    body: '\\d-[A-Z0-9]{9,12}-\\d{10,14}-[a-f0-9]{64}',
  }),
  token({
    id: 'slack-configuration-token',
    type: 'SLACK_TOKEN',
    prefix: 'xoxe.xox',
    body: '[bp]-\\d-[A-Za-z0-9]{140,200}',
  }),
  token({
    id: 'slack-configuration-refresh-token',
    type: 'SLACK_TOKEN',
    prefix: 'xoxe-',
    body: '\\d-[A-Za-z0-9]{140,200}',
  }),
  token({
    id: 'slack-legacy-token',
    type: 'SLACK_TOKEN',
    prefix: 'xox',
    body: '[aors]-\\d{1,14}-[A-Za-z0-9-]{20,120}',
    keywords: ['xoxa-', 'xoxo-', 'xoxr-', 'xoxs-'],
    confidence: 0.9,
  }),
  token({
    id: 'slack-webhook-url',
    type: 'SLACK_WEBHOOK',
    prefix: 'https://hooks.slack.com/services/',
    body: 'T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/[A-Za-z0-9]{24}',
    keywords: ['hooks.slack.com'],
  }),
  token({
    id: 'slack-workflow-webhook-url',
    type: 'SLACK_WEBHOOK',
    prefix: 'https://hooks.slack.com/',
    body: '(?:workflows|triggers)/T[A-Z0-9]{8,12}/A[A-Z0-9]{8,12}/\\d{10,20}/[A-Za-z0-9]{24,32}',
    keywords: ['hooks.slack.com'],
  }),

  // Discord: a bot token is the bot's id in base64, a timestamp and an HMAC, joined by dots.
  contextual({
    id: 'discord-bot-token',
    type: 'DISCORD_TOKEN',
    names: ['discord', 'bot_token', 'bottoken'],
    value: '[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}',
    confidence: 0.9,
  }),
  token({
    id: 'discord-webhook-url',
    type: 'DISCORD_WEBHOOK',
    prefix: 'https://',
    body: '(?:ptb\\.|canary\\.)?discord(?:app)?\\.com/api/webhooks/\\d{17,20}/[A-Za-z0-9_-]{60,68}',
    keywords: ['/api/webhooks/'],
  }),
  // Telegram: the bot's numeric id, `:`, then 35 characters that start `AA`.
  secretRule({
    id: 'telegram-bot-token',
    type: 'TELEGRAM_TOKEN',
    keywords: [':aa'],
    // Also right after `/bot` in the API's own URLs (`api.telegram.org/bot<token>/sendMessage`).
    pattern: new RegExp(
      String.raw`(?:${notAfter('A-Za-z0-9_:-')}|(?<=/bot))(?<value>\d{8,10}:AA[A-Za-z0-9_-]{33})(?![A-Za-z0-9_-])`,
      'g',
    ),
    confidence: 0.9,
  }),
  secretRule({
    id: 'microsoft-teams-webhook-url',
    type: 'TEAMS_WEBHOOK',
    keywords: ['webhook.office.com'],
    pattern: new RegExp(
      `https://[a-z0-9-]{1,60}\\.webhook\\.office\\.com/webhookb2/${UUID}@${UUID}/IncomingWebhook/[a-f0-9]{32}/${UUID}(?:/[A-Za-z0-9_-]{40,60})?`,
      'g',
    ),
    confidence: 0.95,
  }),
  secretRule({
    id: 'azure-logic-app-webhook-url',
    type: 'WORKFLOW_WEBHOOK',
    keywords: ['logic.azure.com'],
    pattern:
      /https:\/\/[a-z0-9-]{1,40}\.[a-z0-9-]{1,40}\.logic\.azure\.com(?::443)?\/workflows\/[a-f0-9]{32}\/triggers\/[A-Za-z0-9_-]{1,80}\/paths\/invoke\?[^\s"'<>]{0,200}?sig=[A-Za-z0-9_-]{43}/g,
    confidence: 0.9,
  }),
  token({
    id: 'google-chat-webhook-url',
    type: 'GOOGLE_CHAT_WEBHOOK',
    prefix: 'https://chat.googleapis.com/v1/spaces/',
    body: '[A-Za-z0-9_-]{11}/messages\\?key=[A-Za-z0-9_-]{39}&token=[A-Za-z0-9_-]{43}(?:%3D|=)?',
    keywords: ['chat.googleapis.com'],
  }),
  token({
    id: 'zapier-webhook-url',
    type: 'ZAPIER_WEBHOOK',
    prefix: 'https://hooks.zapier.com/hooks/catch/',
    body: '\\d{5,10}/[a-z0-9]{6,8}/?',
    keywords: ['hooks.zapier.com'],
    confidence: 0.85,
  }),
  contextual({
    id: 'mattermost-access-token',
    type: 'MATTERMOST_TOKEN',
    names: ['mattermost'],
    value: '[a-z0-9]{26}',
  }),
  contextual({
    id: 'line-channel-access-token',
    type: 'LINE_TOKEN',
    names: ['line_channel', 'linechannel', 'line_bot'],
    value: '[A-Za-z0-9+/]{171,172}=?',
  }),
  token({
    id: 'twitch-oauth-token',
    type: 'TWITCH_TOKEN',
    prefix: 'oauth:',
    body: '[a-z0-9]{30}',
    confidence: 0.8,
  }),
  contextual({
    id: 'zoom-client-secret',
    type: 'ZOOM_SECRET',
    names: ['zoom'],
    secretWord: 'secret',
    value: '[A-Za-z0-9]{32}',
  }),
  contextual({
    id: 'intercom-access-token',
    type: 'INTERCOM_TOKEN',
    names: ['intercom'],
    value: 'dG9rOj[A-Za-z0-9_=-]{50,60}',
  }),

  // SMS and email.
  contextual({
    id: 'twilio-api-key',
    type: 'TWILIO_KEY',
    names: ['twilio'],
    value: 'SK[a-f0-9]{32}',
    confidence: 0.85,
  }),
  contextual({
    id: 'twilio-auth-token',
    type: 'TWILIO_TOKEN',
    names: ['twilio'],
    secretWord: 'token|secret',
    value: '[a-f0-9]{32}',
  }),
  contextual({
    id: 'vonage-api-secret',
    type: 'VONAGE_SECRET',
    names: ['vonage', 'nexmo'],
    secretWord: 'secret',
    value: '[A-Za-z0-9]{16}',
  }),
  token({
    id: 'sendgrid-api-key',
    type: 'SENDGRID_KEY',
    prefix: 'SG.',
    body: '[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}',
  }),
  token({
    id: 'mailgun-api-key',
    type: 'MAILGUN_KEY',
    prefix: 'key-',
    body: '[a-f0-9]{32}',
    confidence: 0.85,
  }),
  contextual({
    id: 'mailgun-private-key',
    type: 'MAILGUN_KEY',
    names: ['mailgun'],
    value: '[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8}',
    confidence: 0.85,
  }),
  secretRule({
    id: 'mailchimp-api-key',
    type: 'MAILCHIMP_KEY',
    keywords: ['-us'],
    pattern: /(?<![A-Za-z0-9_-])(?<value>[a-f0-9]{32}-us\d{1,2})(?![A-Za-z0-9_-])/g,
    confidence: 0.9,
  }),
  contextual({
    id: 'mandrill-api-key',
    type: 'MANDRILL_KEY',
    names: ['mandrill'],
    value: '[A-Za-z0-9_-]{22}',
  }),
  contextual({
    id: 'postmark-server-token',
    type: 'POSTMARK_TOKEN',
    names: ['postmark'],
    secretWord: UUID_SECRET_WORDS,
    value: UUID,
  }),
  token({ id: 'brevo-api-key', type: 'BREVO_KEY', prefix: 'xkeysib-', body: '[a-f0-9]{64}-[A-Za-z0-9]{16}' }),
  token({
    id: 'brevo-smtp-key',
    type: 'BREVO_KEY',
    prefix: 'xsmtpsib-',
    body: '[a-f0-9]{64}-[A-Za-z0-9]{16}',
  }),
  token({
    id: 'resend-api-key',
    type: 'RESEND_KEY',
    prefix: 're_',
    body: '[A-Za-z0-9]{8}_[A-Za-z0-9]{24}',
    confidence: 0.85,
  }),
  contextual({
    id: 'pusher-app-secret',
    type: 'PUSHER_SECRET',
    names: ['pusher'],
    secretWord: 'secret',
    value: '[a-f0-9]{20}',
  }),
];
