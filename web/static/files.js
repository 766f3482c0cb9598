// Files in the composer. A file picked with Attach, dropped on the
// composer or pasted into it is uploaded at once (POST /files), shown as a
// chip with its progress, and, once stored, named by its id in the hidden
// input bound to the attachments signal, which the message is sent with.
// A refused file (too big, a type not taken) says why on its chip and is
// not sent. Sending empties the signal; the chips go with it.

import { sizeWords, upload } from './upload.js'

const composer = () => document.getElementById('composer')

function tray () { return composer()?.querySelector('[data-testid=composer-files]') }
function idsInput () { return composer()?.querySelector('input[name=attachments]') }

// setIDs writes the stored files' ids into the bound input, as typing would.
function setIDs () {
  const input = idsInput()
  if (!input) return
  const ids = [...tray().querySelectorAll('li[data-id]')].map((li) => li.dataset.id)
  input.value = ids.join(',')
  input.dispatchEvent(new Event('input', { bubbles: true }))
}

// send uploads one file, its chip showing how far it got.
function send (file) {
  const list = tray()
  if (!list) return
  const li = document.createElement('li')
  li.className = 'composer-file uploading'
  li.setAttribute('data-testid', 'composer-file')
  const name = document.createElement('span')
  name.className = 'name'
  name.textContent = file.name || 'pasted image'
  const state = document.createElement('span')
  state.className = 'state'
  state.setAttribute('data-testid', 'composer-file-state')
  state.textContent = 'uploading…'
  const remove = document.createElement('button')
  remove.type = 'button'
  remove.className = 'quiet small'
  remove.textContent = '×'
  remove.setAttribute('aria-label', `Remove ${name.textContent}`)
  li.append(name, ' ', state, ' ', remove)
  list.append(li)

  const sending = upload(file, (f) => { state.textContent = `uploading ${Math.round(100 * f)}%` })
  remove.addEventListener('click', () => { sending.abort(); li.remove(); setIDs() })
  sending.then(({ stored, problem }) => {
    li.classList.remove('uploading')
    if (stored) {
      li.dataset.id = stored.id
      li.dataset.state = 'stored'
      state.textContent = sizeWords(stored.size)
      setIDs()
    } else if (problem) {
      li.dataset.state = 'refused'
      li.classList.add('refused')
      state.setAttribute('role', 'alert')
      state.textContent = problem
    }
  })
}

function uploadAll (files) { for (const f of files) send(f) }

document.addEventListener('change', (evt) => {
  const input = evt.target.closest?.('input[data-attach]')
  if (!input || !input.files?.length) return
  uploadAll(input.files)
  input.value = ''
})

document.addEventListener('dragover', (evt) => {
  if (evt.target.closest?.('#composer') && evt.dataTransfer?.types?.includes('Files')) {
    evt.preventDefault()
    composer().classList.add('dropping')
  }
})
document.addEventListener('dragleave', (evt) => {
  if (evt.target.closest?.('#composer')) composer()?.classList.remove('dropping')
})
document.addEventListener('drop', (evt) => {
  if (!evt.target.closest?.('#composer') || !evt.dataTransfer?.files?.length) return
  evt.preventDefault()
  composer().classList.remove('dropping')
  uploadAll(evt.dataTransfer.files)
})

// A pasted picture (a screenshot) is a file; pasted text stays text.
document.addEventListener('paste', (evt) => {
  if (!evt.target.closest?.('#composer')) return
  const files = [...(evt.clipboardData?.files || [])]
  if (!files.length) return
  evt.preventDefault()
  uploadAll(files)
})

// Once the message is sent the server empties the signal; the chips of
// the files it took go too.
document.addEventListener('datastar-fetch', (evt) => {
  const { type, el } = evt.detail || {}
  if (type !== 'finished' || el?.closest?.('form')?.id !== 'composer') return
  requestAnimationFrame(() => {
    if (idsInput()?.value === '') for (const li of [...tray().querySelectorAll('li[data-id]')]) li.remove()
  })
})
