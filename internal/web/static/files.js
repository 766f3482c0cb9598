// Files in a form that sends a message: the composer, the new chat's
// form, the form that edits a message. Each has a tray ([data-files]) and a
// hidden input named attachments. A file picked with its Attach, dropped on
// the form or pasted into it is uploaded at once (POST /files), shown as a
// chip in the tray with its progress, and, once stored, named by its id in
// the hidden input, which the message is sent with. A chip the server drew
// (a message's files, being edited) is one stored already. A refused file
// (too big, a type not taken) says why on its chip and is not sent.
// Sending the composer empties its signal; the chips go with it.

import { shownName, sizeWords, upload } from './upload.js'

// formOf is the form with a tray that evt happened in, if any.
function formOf (evt) {
  const form = evt.target.closest?.('form')
  return form?.querySelector('[data-files]') ? form : null
}

const trayOf = (form) => form.querySelector('[data-files]')
const idsInputOf = (form) => form.querySelector('input[name=attachments]')

// sendings are the uploads under way, by their chips, to stop on removal.
const sendings = new WeakMap()

// setIDs writes the stored files' ids into the form's input, as typing
// would (the composer's is bound to a signal).
function setIDs (form) {
  const input = idsInputOf(form)
  if (!input) return
  const ids = [...trayOf(form).querySelectorAll('li[data-id]')].map((li) => li.dataset.id)
  input.value = ids.join(',')
  input.dispatchEvent(new Event('input', { bubbles: true }))
}

// send uploads one file for form, its chip showing how far it got.
function send (form, file) {
  const list = trayOf(form)
  const chip = list.dataset.files || 'composer-file' // the chips' test id
  const li = document.createElement('li')
  li.className = 'composer-file uploading'
  li.setAttribute('data-testid', chip)
  const name = document.createElement('span')
  name.className = 'name'
  name.textContent = file.name ? shownName(file.name) : 'pasted image'
  const state = document.createElement('span')
  state.className = 'state'
  state.setAttribute('data-testid', `${chip}-state`)
  state.textContent = 'uploading…'
  const remove = document.createElement('button')
  remove.type = 'button'
  remove.className = 'quiet small'
  remove.textContent = '×'
  remove.setAttribute('data-remove-file', '')
  remove.setAttribute('aria-label', `Remove ${name.textContent}`)
  li.append(name, ' ', state, ' ', remove)
  list.append(li)

  const sending = upload(file, (f) => { state.textContent = `uploading ${Math.round(100 * f)}%` })
  sendings.set(li, sending)
  sending.then(({ stored, problem }) => {
    sendings.delete(li)
    li.classList.remove('uploading')
    if (stored) {
      name.textContent = stored.name // as the server keeps it
      remove.setAttribute('aria-label', `Remove ${stored.name}`)
      li.dataset.id = stored.id
      li.dataset.state = 'stored'
      state.textContent = sizeWords(stored.size)
      setIDs(form)
    } else if (problem) {
      li.dataset.state = 'refused'
      li.classList.add('refused')
      state.setAttribute('role', 'alert')
      state.textContent = problem
    }
    settled(form)
  })
}

function uploadAll (form, files) { for (const f of files) send(form, f) }

// A chip's × takes its file out of what is sent, and stops its upload.
document.addEventListener('click', (evt) => {
  const li = evt.target.closest?.('[data-remove-file]')?.closest('li')
  const form = li && formOf(evt)
  if (!form) return
  sendings.get(li)?.abort()
  li.remove()
  setIDs(form)
  settled(form)
})

// picked sends the files picked with an Attach input of a form with a tray.
function picked (input) {
  const form = input.closest('form')
  if (!form?.querySelector('[data-files]') || !input.files?.length) return
  uploadAll(form, input.files)
  input.value = ''
}

document.addEventListener('change', (evt) => {
  const input = evt.target.closest?.('input[data-attach]')
  if (input) picked(input)
})

// Files picked or dropped before this module loaded (it is deferred, and a page is
// usable before then on a slow link or a busy machine) were kept by
// early.js, each pick's: they are sent now, in the order picked.
const early = window.sweatpantsPicked || []
window.sweatpantsPicked = null
for (const { input, files } of early) {
  const form = input.closest('form')
  if (form?.querySelector('[data-files]')) uploadAll(form, files)
}

document.addEventListener('dragover', (evt) => {
  const form = formOf(evt)
  if (form && evt.dataTransfer?.types?.includes('Files')) {
    evt.preventDefault()
    form.classList.add('dropping')
  }
})
document.addEventListener('dragleave', (evt) => { formOf(evt)?.classList.remove('dropping') })
document.addEventListener('drop', (evt) => {
  const form = formOf(evt)
  if (!form || !evt.dataTransfer?.files?.length) return
  evt.preventDefault()
  form.classList.remove('dropping')
  uploadAll(form, evt.dataTransfer.files)
})

// A pasted picture (a screenshot) is a file; pasted text stays text.
document.addEventListener('paste', (evt) => {
  const form = formOf(evt)
  const files = [...(evt.clipboardData?.files || [])]
  if (!form || !files.length) return
  evt.preventDefault()
  uploadAll(form, files)
})

// A message sent while its files are still uploading would go without
// them (and the new chat's form, which leaves the page, would lose them):
// it waits, and goes once they are stored, unless one was refused, whose
// chip then says why. Caught on window, before the page's other listeners
// (glue.js's, Datastar's) take the submit as sent.
window.addEventListener('submit', (evt) => {
  const form = formOf(evt)
  if (!form || !trayOf(form).querySelector('li.uploading')) return
  evt.preventDefault()
  evt.stopImmediatePropagation()
  form.dataset.waitingFiles = ''
}, true)

// settled sends form's waiting message once no upload is under way.
function settled (form) {
  if (!('waitingFiles' in form.dataset) || trayOf(form).querySelector('li.uploading')) return
  delete form.dataset.waitingFiles
  if (!trayOf(form).querySelector('li[data-state=refused]')) form.requestSubmit()
}

// Once the composer's message is sent the server empties the signal; the
// chips of the files it took go too.
document.addEventListener('datastar-fetch', (evt) => {
  const { type, el } = evt.detail || {}
  const form = el?.closest?.('form')
  if (type !== 'finished' || form?.id !== 'composer') return
  requestAnimationFrame(() => {
    if (idsInputOf(form)?.value === '') for (const li of [...trayOf(form).querySelectorAll('li[data-id]')]) li.remove()
  })
})
