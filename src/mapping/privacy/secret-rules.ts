// The secret shapes the scrubber masks by default. The issuer prefixes and lengths follow the
// providers' own documentation and the gitleaks default rule set (github.com/gitleaks/gitleaks,
// config/gitleaks.toml, MIT License, Copyright (c) 2019 Zachary Rice), rewritten for a
// backtracking engine: every pattern runs in linear time. A repeated run (`[…]+`) is either
// bounded or cannot start inside a run of its own characters (a lookbehind on the same class),
// so no character is scanned by more than a constant number of attempts; test/mapping/
// scrub-linear.test.ts holds each pattern to that on 1 MiB of adversarial input.
//
// A pattern with a capture group named `keep` keeps that part (a `password=` prefix, a `Bearer `
// scheme, a webhook's host) and masks the rest of the match.

/** Secrets: masked in every free text and captured value that leaves the process. */
export const SECRET_PATTERNS: readonly RegExp[] = Object.freeze([
  // Private keys (PEM), up to their end marker or the end of the text.
  /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|$)/g,
  /\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b/g,
  // JSON Web Tokens.
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  // Model providers.
  /\bsk-(?:ant-|proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic, OpenRouter
  /\bgsk_[A-Za-z0-9]{52}\b/g, // Groq
  /\br8_[A-Za-z0-9]{37}\b/g, // Replicate
  /\bxai-[A-Za-z0-9]{80}\b/g, // xAI
  /\bpplx-[A-Za-z0-9]{48}\b/g, // Perplexity
  /\bhf_[A-Za-z0-9]{30,}/g, // Hugging Face
  // Source hosting and package registries.
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, // GitHub
  /\bgl(?:pat|ptt|dt|rt|cbt|oas)-[A-Za-z0-9_-]{20,}/g, // GitLab
  /\bnpm_[A-Za-z0-9]{36}\b/g, // npm
  /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g, // PyPI
  /\brubygems_[a-f0-9]{48}\b/g, // RubyGems
  /\boy2[a-z0-9]{43}\b/g, // NuGet
  /\bdckr_pat_[A-Za-z0-9_-]{27}\b/g, // Docker Hub
  // Clouds.
  /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, // AWS access key id
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API key
  /\bya29\.[0-9A-Za-z_-]{20,}/g, // Google OAuth access token
  /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g, // Azure AD client secret
  /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{86}==(?![A-Za-z0-9+/=])/g, // Azure storage account key
  /\bdo[opr]_v1_[a-f0-9]{64}\b/g, // DigitalOcean
  /\bhv[sb]\.[A-Za-z0-9_-]{24,}/g, // HashiCorp Vault
  /\bdp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,44}\b/g, // Doppler
  /\bsbp_[a-f0-9]{40}\b/g, // Supabase
  /\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9._-]{32,64}/g, // PlanetScale
  /\bdapi[a-f0-9]{32}(?:-[0-9])?\b/g, // Databricks
  // Chat and collaboration (tokens and incoming webhooks).
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack token
  /(?<keep>https:\/\/hooks\.slack\.com\/)(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{10,}/g,
  /(?<keep>https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/)[0-9]{5,30}\/[A-Za-z0-9_-]{20,}/g,
  /(?<keep>https:\/\/[A-Za-z0-9-]{1,63}\.webhook\.office\.com\/)webhookb2\/[A-Za-z0-9@/_-]{10,}/g,
  /\b[0-9]{8,10}:AA[A-Za-z0-9_-]{33}\b/g, // Telegram bot token
  /\bATATT3[A-Za-z0-9_=-]{100,}/g, // Atlassian
  /\blin_api_[A-Za-z0-9]{40}\b/g, // Linear
  /\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{46})\b/g, // Notion
  /\bfigd_[A-Za-z0-9_-]{40}/g, // Figma
  /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/g, // Postman
  // Payments, mail, messaging, observability.
  /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g, // Stripe
  /\bwhsec_[A-Za-z0-9]{32,}/g, // Stripe webhook secret
  /\b(?:sq0atp|sq0csp)-[A-Za-z0-9_-]{22,60}/g, // Square
  /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g, // Shopify
  /\bSK[0-9a-fA-F]{32}\b/g, // Twilio
  /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g, // SendGrid
  /\bkey-[0-9a-zA-Z]{32}\b/g, // Mailgun
  /\bNRAK-[A-Z0-9]{27}\b/g, // New Relic
  /\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b/g, // Grafana service account
  /\bsntry[su]_[A-Za-z0-9+/=_-]{50,}/g, // Sentry
  // Credentials known by their context (authorization, cookies, URLs, assignments) are the
  // context layer's: context-rules.ts.
]);
