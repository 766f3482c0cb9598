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

// upload sends file, calling onProgress with the fraction sent (0 to 1)
// as it goes. It resolves with {stored} — the file as the server keeps it:
// id, name, type, size — or with {problem}, the server's reason in words
// (too large, a type not taken) or why it could not be reached. abort()
// on the returned promise stops it; it then resolves with neither.
export function upload (file, onProgress) {
  const xhr = new XMLHttpRequest()
  const done = new Promise((resolve) => {
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
        if (stored?.id) return resolve({ stored })
      }
      resolve({ problem: (xhr.responseText || `The file could not be uploaded (${xhr.status}).`).trim() })
    })
    xhr.addEventListener('error', () => resolve({ problem: 'The file could not be uploaded: the server cannot be reached.' }))
    xhr.addEventListener('abort', () => resolve({}))
    xhr.send(body)
  })
  done.abort = () => xhr.abort()
  return done
}
