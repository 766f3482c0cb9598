// What must work before the page's modules have loaded. This is a classic
// script in <head>, so it runs before the body is parsed and drawn; glue.js
// and Datastar are modules, deferred until the whole page is parsed, which
// on a slow connection is a while after the user sees and can use it.
'use strict'

// The theme: as the system says (prefers-color-scheme, in app.css), unless
// the toggle chose light or dark, which this browser remembers. Applied
// here, so a page never shows first in the system's theme, then flips.
;(function () {
  const root = document.documentElement
  const themes = ['system', 'dark', 'light']
  let theme = 'system'
  try { theme = localStorage.getItem('theme') || 'system' } catch { /* storage off: the system's */ }
  function applyTheme () {
    if (theme === 'dark' || theme === 'light') root.dataset.theme = theme
    else delete root.dataset.theme
    for (const b of document.querySelectorAll('[data-theme-toggle]')) b.textContent = `Theme: ${theme}`
  }
  applyTheme()
  document.addEventListener('DOMContentLoaded', applyTheme) // labels the toggle
  document.addEventListener('click', (evt) => {
    if (!evt.target.closest?.('[data-theme-toggle]')) return
    theme = themes[(themes.indexOf(theme) + 1) % themes.length]
    try {
      if (theme === 'system') localStorage.removeItem('theme')
      else localStorage.setItem('theme', theme)
    } catch { /* storage off: this page only */ }
    applyTheme()
  })
})()

// Enter sends the composer's message ([data-enter-sends] on its textarea),
// Shift+Enter starts a new line. Here rather than in a Datastar attribute,
// so that an Enter pressed as soon as the textarea takes input sends: at
// once for a plain form (the new chat page's, which posts itself), and for
// a form Datastar sends, as soon as Datastar is ready — never a new line
// the user did not want. Enters pressed before then send once.
;(function () {
  let datastarReady = false
  let waiting = null // the form to send when Datastar is ready
  document.addEventListener('datastar-ready', () => {
    datastarReady = true
    waiting?.requestSubmit()
    waiting = null
  }, { once: true })
  document.addEventListener('keydown', (evt) => {
    const input = evt.target
    if (evt.key !== 'Enter' || evt.shiftKey || evt.isComposing || evt.defaultPrevented) return
    if (!input.matches?.('textarea[data-enter-sends]') || !input.form) return
    evt.preventDefault()
    if (input.form.hasAttribute('action') || datastarReady) input.form.requestSubmit()
    else waiting = input.form
  })
})()

// Files picked with an Attach button, or dropped on a form that takes
// files, before files.js has loaded. The input holds only the last pick,
// so a second pick before then would drop the first: each pick's files are
// kept here, and the input emptied for the next, until files.js takes them
// (it sets the list to null, and from then on hears picks and drops
// itself). A drop not caught here would have the browser leave the page
// to open the file.
;(function () {
  const early = []
  window.sweatpantsPicked = early
  const waiting = () => window.sweatpantsPicked === early
  document.addEventListener('change', (evt) => {
    if (!waiting()) return
    const input = evt.target.closest?.('input[data-attach]')
    if (!input?.files?.length) return
    early.push({ input, files: [...input.files] })
    input.value = ''
  })
  const takesFiles = (evt) => {
    const form = evt.target.closest?.('form')
    return form?.querySelector('[data-files]') && evt.dataTransfer?.types?.includes('Files') ? form : null
  }
  document.addEventListener('dragover', (evt) => {
    if (waiting() && takesFiles(evt)) evt.preventDefault()
  })
  document.addEventListener('drop', (evt) => {
    const form = waiting() && takesFiles(evt)
    if (!form || !evt.dataTransfer.files.length) return
    evt.preventDefault()
    early.push({ input: form, files: [...evt.dataTransfer.files] })
  })
})()
