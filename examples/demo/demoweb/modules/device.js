// The demo's methods as the browser does them (package demo's protocol
// Device): a photo from the camera and a notification on the desktop.
// Every conversation page loads this module (app.Config.Modules); the
// page calls an implementation when its question's run button is clicked.
import { implement, denied, cancelled } from '/static/protocol.js'

// MAX_IMAGE is demo.MaxPhotoImage: the most characters a photo's data URL
// may have, so that its answer fits the server's largest request body.
const MAX_IMAGE = 60000

// take-photo: {facing, maxWidth} → {width, height, image}. A refused
// camera permission is thrown by getUserMedia as NotAllowedError, which
// the page answers as denied.
implement('take-photo', async (args, send) => {
  if (!navigator.mediaDevices?.getUserMedia) {
    throw new Error('This browser cannot use a camera on this page.')
  }
  send({ status: 'requesting-permission' })
  const stream = await navigator.mediaDevices.getUserMedia({
    video: { facingMode: args.facing, width: { ideal: args.maxWidth } },
    audio: false,
  })
  const video = document.createElement('video')
  try {
    send({ status: 'capturing' })
    video.muted = true
    video.playsInline = true
    video.srcObject = stream
    await video.play()
    if (!video.videoWidth || !video.videoHeight) {
      throw new Error('The camera gave no picture.')
    }
    return snapshot(video, args.maxWidth)
  } finally {
    // The camera's light goes off at once, whatever happened.
    for (const track of stream.getTracks()) track.stop()
    video.srcObject = null
  }
})

// snapshot draws video's current frame at most maxWidth wide, keeping its
// shape, as a JPEG; a photo too long to send is drawn smaller until it fits.
function snapshot(video, maxWidth) {
  let width = Math.min(video.videoWidth, maxWidth || video.videoWidth)
  for (;;) {
    const height = Math.max(1, Math.round((video.videoHeight * width) / video.videoWidth))
    const canvas = document.createElement('canvas')
    canvas.width = width
    canvas.height = height
    canvas.getContext('2d').drawImage(video, 0, 0, width, height)
    const image = canvas.toDataURL('image/jpeg', 0.8)
    if (image.length <= MAX_IMAGE) return { width, height, image }
    if (width <= 32) throw new Error('The photo is too large to send.')
    width = Math.max(32, Math.floor(width * 0.7))
  }
}

// notify-desktop: {title, body} → {shown}. The permission is asked only
// when the user has not given or refused it yet; refused is denied, a
// prompt dismissed without an answer is cancelled.
implement('notify-desktop', async (args, send) => {
  if (!('Notification' in window)) {
    throw new Error('This browser cannot show notifications.')
  }
  let permission = Notification.permission
  if (permission === 'default') {
    send({ status: 'requesting-permission' })
    permission = await Notification.requestPermission()
  }
  if (permission === 'denied') return denied()
  if (permission !== 'granted') return cancelled()
  try {
    new Notification(args.title, { body: args.body ?? '' })
  } catch (err) {
    // Some browsers (Chrome on Android) allow notifications but show them
    // only from a service worker: allowed, and not shown.
    if (err instanceof TypeError) return { shown: false }
    throw err
  }
  return { shown: true }
})
