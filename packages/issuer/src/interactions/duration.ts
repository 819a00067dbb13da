/**
 * How long to wait, in words, for the sign-in pages' lockout messages.
 *
 * @module
 */

/**
 * "45 seconds", "1 minute", "15 minutes".
 *
 * @example
 * ```ts
 * LOGIN_MESSAGES.locked.replace('{wait}', duration(840)); // 'Too many failed sign-in attempts from your network. Try again in 14 minutes.'
 * ```
 */
export const duration = (seconds: number): string => {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
};
