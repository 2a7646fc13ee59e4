/** What applying an event to an open run did. */
export type ApplyOutcome =
  | { readonly outcome: 'accepted' }
  | {
      readonly outcome: 'duplicate' | 'rejected';
      readonly reason: string;
      readonly message: string;
    };

export const ACCEPTED: ApplyOutcome = { outcome: 'accepted' };
export function rejected(
  outcome: 'duplicate' | 'rejected',
  reason: string,
  message: string,
): ApplyOutcome {
  return { outcome, reason, message };
}
