// Payments and commerce: keys that move money or read orders. Each format as the provider
// documents it. Publishable keys (Stripe pk_, Shopify's storefront ids) are meant to be public
// and have no rule.

import type { DetectionRule } from '../detect.ts';
import { contextual, token } from './rule.ts';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

export const PAYMENT_RULES: readonly DetectionRule[] = [
  token({
    id: 'stripe-secret-key',
    type: 'STRIPE_KEY',
    prefix: 'sk_live_',
    body: '[A-Za-z0-9]{24,247}',
    confidence: 0.97,
  }),
  token({
    id: 'stripe-restricted-key',
    type: 'STRIPE_KEY',
    prefix: 'rk_live_',
    body: '[A-Za-z0-9]{24,247}',
    confidence: 0.97,
  }),
  // Test-mode keys move no money but do open the account's test data.
  token({
    id: 'stripe-test-secret-key',
    type: 'STRIPE_KEY',
    prefix: 'sk_test_',
    body: '[A-Za-z0-9]{24,247}',
    confidence: 0.65,
  }),
  token({
    id: 'stripe-webhook-secret',
    type: 'STRIPE_WEBHOOK_SECRET',
    prefix: 'whsec_',
    body: '[A-Za-z0-9+/]{32,64}={0,2}',
  }),
  token({ id: 'square-access-token', type: 'SQUARE_TOKEN', prefix: 'sq0atp-', body: '[A-Za-z0-9_-]{22}' }),
  token({ id: 'square-oauth-secret', type: 'SQUARE_SECRET', prefix: 'sq0csp-', body: '[A-Za-z0-9_-]{43}' }),
  contextual({
    id: 'square-production-access-token',
    type: 'SQUARE_TOKEN',
    names: ['square'],
    value: 'EAAA[A-Za-z0-9_-]{60}',
    confidence: 0.85,
  }),
  token({
    id: 'braintree-access-token',
    type: 'BRAINTREE_TOKEN',
    prefix: 'access_token$production$',
    body: '[a-z0-9]{16}\\$[a-f0-9]{32}',
  }),
  contextual({
    id: 'paypal-client-secret',
    type: 'PAYPAL_SECRET',
    names: ['paypal'],
    secretWord: 'secret',
    value: '[A-Za-z0-9_-]{80}',
  }),
  contextual({
    id: 'adyen-api-key',
    type: 'ADYEN_KEY',
    names: ['adyen'],
    value: 'AQE[A-Za-z0-9_+/=.-]{90,250}',
  }),
  token({
    id: 'razorpay-key-id',
    type: 'RAZORPAY_KEY',
    prefix: 'rzp_live_',
    body: '[A-Za-z0-9]{14}',
    confidence: 0.8,
  }),
  contextual({
    id: 'razorpay-key-secret',
    type: 'RAZORPAY_SECRET',
    names: ['razorpay'],
    secretWord: 'secret',
    value: '[A-Za-z0-9]{24}',
  }),
  token({ id: 'shopify-access-token', type: 'SHOPIFY_TOKEN', prefix: 'shpat_', body: '[a-fA-F0-9]{32}' }),
  token({ id: 'shopify-custom-app-token', type: 'SHOPIFY_TOKEN', prefix: 'shpca_', body: '[a-fA-F0-9]{32}' }),
  token({
    id: 'shopify-private-app-password',
    type: 'SHOPIFY_TOKEN',
    prefix: 'shppa_',
    body: '[a-fA-F0-9]{32}',
  }),
  token({ id: 'shopify-shared-secret', type: 'SHOPIFY_SECRET', prefix: 'shpss_', body: '[a-fA-F0-9]{32}' }),
  token({
    id: 'plaid-access-token',
    type: 'PLAID_TOKEN',
    prefix: 'access-',
    body: `(?:sandbox|development|production)-${UUID}`,
    keywords: ['access-sandbox-', 'access-development-', 'access-production-'],
  }),
  contextual({
    id: 'plaid-secret',
    type: 'PLAID_SECRET',
    names: ['plaid'],
    secretWord: 'secret',
    value: '[a-f0-9]{30}',
  }),
  token({
    id: 'flutterwave-secret-key',
    type: 'FLUTTERWAVE_KEY',
    prefix: 'FLWSECK-',
    body: '[a-f0-9]{32}-X',
  }),
  token({
    id: 'flutterwave-test-secret-key',
    type: 'FLUTTERWAVE_KEY',
    prefix: 'FLWSECK_TEST-',
    body: '[a-f0-9]{32}-X',
    confidence: 0.65,
  }),
  contextual({
    id: 'gocardless-access-token',
    type: 'GOCARDLESS_TOKEN',
    names: ['gocardless'],
    value: 'live_[A-Za-z0-9_-]{40}',
    confidence: 0.9,
  }),
  contextual({
    id: 'mollie-api-key',
    type: 'MOLLIE_KEY',
    names: ['mollie'],
    value: 'live_[A-Za-z0-9]{30}',
    confidence: 0.9,
  }),
  token({
    id: 'paddle-api-key',
    type: 'PADDLE_KEY',
    prefix: 'pdl_',
    body: '(?:live|sdbx)_apikey_[a-z0-9]{26}_[A-Za-z0-9]{22}_[A-Za-z0-9]{3}',
  }),
  token({
    id: 'duffel-access-token',
    type: 'DUFFEL_TOKEN',
    prefix: 'duffel_',
    body: '(?:test|live)_[A-Za-z0-9_=-]{43}',
  }),
  token({
    id: 'shippo-api-token',
    type: 'SHIPPO_TOKEN',
    prefix: 'shippo_',
    body: '(?:live|test)_[a-f0-9]{40}',
  }),
  token({ id: 'easypost-api-key', type: 'EASYPOST_KEY', prefix: 'EZAK', body: '[a-z0-9]{54}' }),
  contextual({
    id: 'coinbase-api-secret',
    type: 'COINBASE_SECRET',
    names: ['coinbase'],
    secretWord: 'secret',
    value: '[A-Za-z0-9+/]{86}==',
  }),
];
