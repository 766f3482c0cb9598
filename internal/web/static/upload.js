// One upload: a file sent to POST /files, its progress told as it goes.
// The composer (files.js) and a question that asks for a file (glue.js)
// both send their files this way, and read the server's refusals alike.

// sizeWords says n bytes as the server's pages do (bytesize.Words).
export function sizeWords (n) {
  const one = (f) => f.toFixed(1).replace(/\.0$/, '')
  if (n < 1024) return `${n} bytes`
  if (n < 1024 * 1024) return `${one(n / 1024)} KB`
  if (n < 1024 * 1024 * 1024) return `${one(n / 1024 / 1024)} MB`
  return `${one(n / 1024 / 1024 / 1024)} GB`
}

// shownName is how a file's name is shown before the server has said how
// it keeps it (files.CleanName does the same): the last part of a path,
// without control or formatting characters (a right-to-left override can
// make "txt.exe" read "exe.txt"), nor leading dots; "file" if nothing is
// left.
export function shownName (name) {
  const last = String(name || '').split(/[/\\]/).pop()
  const clean = last.replace(/\s/g, ' ').replace(/[\p{Cc}\p{Cf}\uFFFD]/gu, '').trim().replace(/^\.+/, '').trim()
  return clean || 'file'
}

// A browser without a session is given one by the first upload the server
// stores (its answer sets the cookie). Uploads started together before
// then would each be given a session of their own, and the files of all but
// the session whose cookie the browser kept last would not be the
// browser's when the message is sent. So while the page has no session
// (the new chat page marks its form data-sessionless for a browser that
// has none), uploads go one at a time until one is stored; those waiting
// then go together, into its session.
let sessionGiven = false
const sessionless = () => !sessionGiven && document.querySelector('[data-sessionless]') !== null

// turn settles when the next upload of a page without a session may go.
let turn = Promise.resolve()

// upload sends file, calling onProgress with the fraction sent (0 to 1)
// as it goes. It resolves with {stored} — the file as the server keeps it:
// id, name, type, size — or with {problem}, the server's reason in words
// (too large, a type not taken) or why it could not be reached. abort()
// on the returned promise stops it, waiting or under way; it then resolves
// with neither.
export function upload (file, onProgress) {
  if (!sessionless()) return send(file, onProgress)
  let release
  const mine = new Promise((resolve) => { release = resolve })
  const before = turn
  turn = mine
  let stopped = false
  let sending = null
  const done = before.then(() => {
    if (stopped) return {}
    if (!sessionless()) release() // the page has its session: the next goes too
    sending = send(file, onProgress)
    return sending
  }).then((got) => {
    release()
    return got
  })
  done.abort = () => {
    stopped = true
    sending?.abort()
  }
  return done
}

// At most atOnce uploads of the page go at once, the others waiting their
// turn: the server takes only so many of a session's at once (its
// --max-uploads-per-session, 8 unless configured), and a page that sent
// more would see the rest refused.
const atOnce = 4
let going = 0
const queued = []
const slot = () => going < atOnce ? (going++, Promise.resolve()) : new Promise((resolve) => queued.push(resolve))
function freeSlot () {
  const next = queued.shift()
  if (next) next()
  else going--
}

// send is one upload (see upload), once a slot is free.
function send (file, onProgress) {
  let xhr = null
  let stopped = false
  const done = slot().then(() => new Promise((resolve) => {
    if (stopped) return resolve({})
    xhr = new XMLHttpRequest()
    const body = new FormData()
    body.append('file', file, file.name || 'pasted.png')
    xhr.open('POST', '/files')
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable && onProgress) onProgress(e.loaded / e.total)
    })
    xhr.addEventListener('load', () => {
      if (xhr.status === 200) {
        let stored
        try { stored = JSON.parse(xhr.responseText)[0] } catch { stored = null }
        if (stored?.id) {
          sessionGiven = true
          return resolve({ stored })
        }
      }
      resolve({ problem: (xhr.responseText || `The file could not be uploaded (${xhr.status}).`).trim() })
    })
    xhr.addEventListener('error', () => resolve({ problem: 'The file could not be uploaded: the server cannot be reached.' }))
    xhr.addEventListener('abort', () => resolve({}))
    xhr.send(body)
  })).then((got) => {
    freeSlot()
    return got
  })
  done.abort = () => {
    stopped = true
    xhr?.abort()
  }
  return done
}
