/** The JSON our applet hooks answer Exotel's flow with: the Voicebot's stream URL, the Connect applet's number and its playback. */

/** The Voicebot applet's dynamic URL answer: the socket to open, naming the call and carrying its capability. */
export const streamUrlJson = (mediaUrl: string, callId: string, token: string) =>
  ({ url: `${mediaUrl}?${new URLSearchParams({ call_id: callId, token })}` });

/** The Connect applet's dynamic number answer: dial the transfer target once. */
export const dialJson = (target: string) => ({ fetch_after_attempt: false, destination: { numbers: [target] } });

/**
 * The Connect applet's dynamic playback answer ("Read text like a robot" set to a URL): the text Exotel speaks to
 * the dialed human alone (playback_to callee) before the caller is connected: a warm transfer's summary.
 */
export const calleePlaybackJson = (text: string) => ({ start_call_playback: { playback_to: 'callee', type: 'text', value: text } });
