// Browser glue. The backend drives everything; this file only reports the
// stream's health on <html data-stream> (styled as a reconnecting banner)
// and turns a failed request with no better explanation into a notice.
// The server pushes its own explanation over the stream; this is the fallback.
const root = document.documentElement

document.addEventListener('datastar-fetch', (evt) => {
  const { type, el, argsRaw } = evt.detail || {}
  const fromStream = el && el.id === 'stream'
  if (fromStream) {
    if (type === 'datastar-patch-elements') root.dataset.stream = 'live'
    else if (type === 'retrying' || type === 'error' || type === 'retries-failed') root.dataset.stream = 'reconnecting'
    return
  }
  const notice = document.getElementById('notice')
  // A new request replaces the fallback notice of the last one; the server
  // clears its own.
  if (type === 'started' && notice?.dataset.fallback) {
    notice.textContent = ''
    notice.classList.remove('shown')
    delete notice.dataset.fallback
  }
  if (type !== 'error') return
  // 422: the form that was sent shows what to fix, beside each field.
  if (String(argsRaw?.status) === '422') return
  if (!notice || notice.textContent.trim() !== '') return
  const status = argsRaw?.status
  notice.textContent = status
    ? `The server refused that request (HTTP ${status}).`
    : 'The server could not be reached. Check that it is running, then try again.'
  notice.dataset.fallback = '1'
  notice.classList.add('shown')
})
