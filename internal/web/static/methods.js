// The built-in methods the browser implements: the device's location and
// the clipboard (package elicit's kinds location, clipboard-read and
// clipboard-write). Each runs on the click of its card's button, since
// browsers give the clipboard, and ask for the location, only in answer to
// one; protocol.js posts what they report and return.
import { denied, implement } from './protocol.js'

// location is the seed's getLocation: it reports asking for permission
// (only when the browser will ask) and finding the location, as progress
// {status}, and returns the position. A permission refused, now or
// before, is denied.
implement('location', async (args, send) => {
  let permission
  try {
    permission = await navigator.permissions.query({ name: 'geolocation' })
  } catch { /* no Permissions API: ask anyway */ }
  if (permission?.state === 'denied') return denied()
  let acquiring = false
  const acquire = () => {
    if (acquiring) return
    acquiring = true
    send({ status: 'acquiring' })
  }
  if (permission?.state === 'granted') acquire()
  else {
    send({ status: 'requesting-permission' })
    if (permission) permission.onchange = () => { if (permission.state === 'granted') acquire() }
  }
  const high = args?.accuracy === 'high'
  let pos
  try {
    pos = await new Promise((resolve, reject) => navigator.geolocation.getCurrentPosition(resolve, reject,
      { enableHighAccuracy: high, timeout: 60000, maximumAge: high ? 0 : 600000 }))
  } catch (err) {
    if (err.code === err.PERMISSION_DENIED) return denied()
    throw new Error(`Your device could not find its location (${err.message || 'unknown error'}). Try again, or decline.`)
  } finally {
    if (permission) permission.onchange = null
  }
  // A browser that did not say when it was allowed has found the
  // location all the same: the stage is reported before the result.
  acquire()
  const { latitude: lat, longitude: lng, accuracy } = pos.coords
  return { lat, lng, accuracy: accuracy || 0 }
})

// clipboard-read hands over the clipboard's text.
implement('clipboard-read', async () => {
  let text
  try {
    text = await navigator.clipboard.readText()
  } catch (err) {
    if (err.name === 'NotAllowedError') return denied()
    throw new Error(`The clipboard could not be read (${err.message}).`)
  }
  return { text }
})

// clipboard-write copies the text the agent offers.
implement('clipboard-write', async (args) => {
  try {
    await navigator.clipboard.writeText(args?.text ?? '')
  } catch (err) {
    if (err.name === 'NotAllowedError') return denied()
    throw new Error(`The text could not be copied (${err.message}).`)
  }
  return { copied: true }
})
