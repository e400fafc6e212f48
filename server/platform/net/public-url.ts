/**
 * PUBLIC_URL is the address the phone carriers (Twilio, Plivo) call back: their webhooks and media
 * streams. On this machine (localhost, a loopback address) they cannot reach the server, so inbound calls
 * and call status never arrive: the server says so in its log at start, and the Phone Numbers screen says
 * so to a company with a carrier connected (GET /phone/telephony-status).
 */
export const isLocalPublicUrl = (publicUrl: string) => {
  try {
    const host = new URL(publicUrl).hostname;
    return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\./.test(host) || host === '0.0.0.0';
  } catch {
    return true;
  }
};

/** The carriers whose calls need PUBLIC_URL to reach this server. */
export const CARRIERS = ['twilio', 'plivo'] as const;
