// The UDP fence probe (runtime/browser/supply/udp_fence.py), run in the probe's own blank page:
// relay-only ICE gathering with one TURN server, `turnUrl` (the probe's loopback UDP socket).
// Answers once gathering completed, so every datagram it sent is already at the socket.
// Whether the browser has WebRTC at all is part of the answer.
async (turnUrl) => {
  if (typeof RTCPeerConnection !== 'function') return {webrtc: false};
  const pc = new RTCPeerConnection({
    iceServers: [{urls: turnUrl, username: 'verity', credential: 'udp-fence-probe'}],
    iceTransportPolicy: 'relay',
  });
  const complete = new Promise((resolve) => {
    pc.addEventListener('icegatheringstatechange', () => { if (pc.iceGatheringState === 'complete') resolve(); });
  });
  pc.createDataChannel('probe');
  await pc.setLocalDescription(await pc.createOffer());
  if (pc.iceGatheringState !== 'complete') await complete;
  pc.close();
  return {webrtc: true};
}
