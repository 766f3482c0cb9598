// Time on the cards (time.templ). The server writes each time as UTC in an
// attribute; this writes it for the reader, on the page alone: a
// <time data-local-time datetime="…"> in the reader's locale, and a
// [data-countdown="…"] as the time left until then, each second ("Expires
// in 2:59", "in 4 min"). It only ever writes the text of those elements,
// and only when it differs: when Datastar morphs a card back to the
// server's text, the observer below writes it again at once, and writing
// the same text changes nothing, so the two never chase each other. Past
// its time a countdown says so until the server redraws the card answered.

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

// asClock says the ms left as a clock: 2:59, 1:02:03.
function asClock (ms) {
  const s = Math.ceil(ms / 1000)
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const ss = String(s % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`
}

// asWords says the ms left in words: 42 s, 4 min, 2 h 5 min.
function asWords (ms) {
  const s = Math.ceil(ms / 1000)
  if (s < 60) return `${s} s`
  const m = Math.ceil(s / 60)
  if (m < 60) return `${m} min`
  const h = Math.floor(m / 60)
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`
}

// write sets el's text to text, when it is not that already.
function write (el, text) {
  if (el.textContent !== text) el.textContent = text
}

// tick writes every time and countdown under root as of now.
function tick (root = document) {
  const now = Date.now()
  for (const el of root.querySelectorAll('time[data-local-time]')) {
    const t = Date.parse(el.getAttribute('datetime'))
    if (!Number.isNaN(t)) write(el, timeFormat.format(t))
  }
  for (const el of root.querySelectorAll('[data-countdown]')) {
    const t = Date.parse(el.dataset.countdown)
    if (Number.isNaN(t)) continue
    const ms = t - now
    if (ms <= 0) {
      write(el, el.dataset.countdownStyle === 'clock' ? 'Time is up' : 'now')
      continue
    }
    const prefix = el.dataset.countdownPrefix || ''
    write(el, prefix + (el.dataset.countdownStyle === 'clock' ? asClock(ms) : asWords(ms)))
  }
}

// The ticks run only while the page has something to count.
let timer = 0
function schedule () {
  const any = document.querySelector('[data-countdown], time[data-local-time]')
  if (any && !timer) {
    timer = setInterval(() => { tick(); schedule() }, 1000)
  } else if (!any && timer) {
    clearInterval(timer)
    timer = 0
  }
}

new MutationObserver(() => { tick(); schedule() }).observe(document.documentElement, { childList: true, subtree: true, characterData: true })
document.addEventListener('DOMContentLoaded', () => { tick(); schedule() })
