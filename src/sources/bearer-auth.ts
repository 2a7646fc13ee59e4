import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Checks an `Authorization: Bearer <token>` header in constant time: both sides are hashed first,
 * so neither the token's length nor its content leaks through timing.
 */
export function createBearerCheck(token: string): (header: string | undefined) => boolean {
  const expected = createHash('sha256').update(token).digest();
  return (header) => {
    const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
    const given = createHash('sha256')
      .update(match?.[1]?.trim() ?? '')
      .digest();
    return timingSafeEqual(given, expected) && match !== null;
  };
}
