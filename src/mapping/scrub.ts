/** What a masked secret is replaced with. */
export const REDACTED = '[REDACTED]';

/**
 * Default secret shapes. A pattern with a capture group named `keep` keeps that part (a
 * `password=` prefix, a `Bearer ` scheme) and masks the rest of the match.
 */
export const DEFAULT_SCRUB_PATTERNS: readonly RegExp[] = Object.freeze([
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, // JWT
  /\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, // GitHub
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab
  /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, // AWS access key id
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API key
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g, // Stripe
  /\bhf_[A-Za-z0-9]{30,}/g, // Hugging Face
  /(?<keep>\b[Bb]earer\s+)[A-Za-z0-9._~+/=-]{8,}/g,
  /(?<keep>\b[Bb]asic\s+)[A-Za-z0-9+/=]{8,}/g,
  /(?<keep>[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/gi, // password in a URL
  /(?<keep>\b(?:password|passwd|pwd|secret|client_secret|token|access_token|refresh_token|api[_-]?key|apikey|aws_secret_access_key)["']?\s*[:=]\s*["']?)[^\s"'&,;)}\]]+/gi,
]);

/** Masks secrets in free text before it leaves the process. */
export type Scrubber = (text: string) => string;

export function createScrubber(patterns: readonly RegExp[]): Scrubber {
  const compiled = patterns.map((p) => (p.global ? p : new RegExp(p.source, `${p.flags}g`)));
  return (text) => {
    let out = text;
    for (const pattern of compiled) {
      pattern.lastIndex = 0;
      out = out.replace(pattern, (...args: unknown[]) => {
        const groups = args.at(-1);
        const keep =
          typeof groups === 'object' && groups !== null
            ? (groups as { keep?: string }).keep
            : undefined;
        return `${keep ?? ''}${REDACTED}`;
      });
    }
    return out;
  };
}
