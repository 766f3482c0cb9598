// Browser glue. The backend drives everything; this file reports the
// stream's health on <html data-stream> (styled as a reconnecting banner),
// turns a failed request with no better explanation into a notice (the
// server pushes its own explanation over the stream; this is the fallback),
// and uploads a file a question asks for. Methods the browser implements
// (the device's location, the clipboard) are protocol.js's.
import { answer, refusal, reporter, showNotice, showProblem, unreachable } from './answer.js'
import { shownName, sizeWords, upload } from './upload.js'

const root = document.documentElement

// The theme is early.js's: it must apply before the first paint.

// On a touch screen there is no Shift+Enter to mention.
if (matchMedia('(pointer: coarse)').matches) {
  for (const input of document.querySelectorAll('[data-testid=composer-input]')) input.placeholder = 'Message the agent'
}

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
  const status = argsRaw?.status
  showNotice(status ? refusal(status) : unreachable)
})

// Following the conversation. While the reader is at the bottom of the
// chat, whatever the backend adds (a reply, a form, a side answer, a
// streamed token) is scrolled into view, as in any chat, and a conversation
// opens at its end. Once they scroll up to read, nothing moves under them
// until they come back down or send something, which means they want to
// see what comes of it. The chat is patched inside <main>, which no patch
// replaces, so that is what is watched.
const main = document.getElementById('chat')?.closest('main')
if (main) {
  const slack = 48 // px from the bottom that still count as at the bottom
  let following = true
  const toBottom = () => window.scrollTo(0, document.documentElement.scrollHeight)
  // Only the reader scrolling up stops the following. A scroll event comes
  // a frame after its scroll, and content may have grown meanwhile, so "not
  // at the bottom" alone could be our own scroll overtaken by a new form.
  let lastTop = document.documentElement.scrollTop
  addEventListener('scroll', () => {
    const el = document.documentElement
    if (el.scrollHeight - el.scrollTop - el.clientHeight <= slack) following = true
    else if (el.scrollTop < lastTop) following = false
    lastTop = el.scrollTop
  }, { passive: true })
  let queued = false
  new MutationObserver(() => {
    if (!following || queued) return
    queued = true
    requestAnimationFrame(() => { queued = false; if (following) toBottom() })
  }).observe(main, { childList: true, subtree: true, characterData: true })
  document.addEventListener('datastar-fetch', (evt) => {
    const { type, el } = evt.detail || {}
    if (type === 'started' && el?.closest?.('#composer')) { following = true; toBottom() }
  })
  // A conversation opens at its end, a reload too: the browser is not to
  // put back where the page was.
  history.scrollRestoration = 'manual'
  toBottom()
}

// Grouped inputs. In a form, each [data-group] is one way of answering: a
// flight with its seats, "something else" with its text. Using an input of
// a group selects the group's [data-group-pick] and clears the inputs of the
// other groups, so the form never sends two answers at once.
document.addEventListener('input', (evt) => {
  const input = evt.target
  const group = input.closest?.('[data-group]')
  if (!group || !input.form) return
  const pick = group.querySelector('[data-group-pick]')
  if (pick && pick !== input) pick.checked = true
  for (const other of input.form.querySelectorAll('[data-group]')) {
    if (other === group) continue
    for (const el of other.querySelectorAll('input')) {
      if (el.type === 'radio' || el.type === 'checkbox') el.checked = false
      else el.value = ''
    }
  }
})

// A question asking for a file. The file picked is checked against the
// question's limit here, for a quick answer; uploaded (upload.js) with its
// progress reported — uploading, a report a quarter of the way, stored —
// and given as the answer by its id alone: the server checks the rest
// (that it is this session's, of a type and size the question takes) and
// says what is wrong in the card. A question dismissed or declined while
// its file uploads, or gone from the page, stops the upload: the file is
// not kept for an answer that will not come.
document.addEventListener('change', async (evt) => {
  const input = evt.target.closest?.('input[data-elicit-file]')
  const card = input?.closest('[data-answer-url]')
  if (!card || !input.files?.length) return
  const file = input.files[0]
  input.value = '' // the same file may be picked again after a refusal
  const url = card.dataset.answerUrl
  const problem = (text) => showProblem(card, text)
  problem('')
  const max = Number(input.dataset.max || 0)
  const name = shownName(file.name)
  if (max > 0 && file.size > max) {
    return problem(`${name} is ${sizeWords(file.size)}; the most this question takes is ${sizeWords(max)}.`)
  }
  input.disabled = true
  const question = card.closest('[data-testid=elicit]') || card
  let stop = () => {}
  let stopped = false
  const dismissed = () => {
    stopped = true
    stop()
  }
  // The card's other answers (decline, dismiss, keep my answer) are
  // submitted in it; an answer from elsewhere (another tab) redraws it as
  // answered, or takes it away.
  const onSubmit = (evt) => { if (evt.target.closest?.('[data-testid=elicit-dismiss]')) dismissed() }
  question.addEventListener('submit', onSubmit, true)
  const changing = 'changing' in card.dataset
  const watch = new MutationObserver(() => {
    if (!question.isConnected || (!changing && question.dataset.state && question.dataset.state !== 'pending')) dismissed()
  })
  watch.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'] })
  try {
    // A changed answer has no question waiting to hear stages.
    const progress = changing ? Object.assign(() => {}, { done: async () => {} }) : reporter(url)
    const what = `${file.name ? name : 'the file'} (${sizeWords(file.size)})`
    progress('uploading', `Uploading ${what}…`)
    let told = 0
    const sending = upload(file, (f) => {
      const quarter = Math.floor(f * 4)
      if (quarter > told && quarter < 4) {
        told = quarter
        progress('uploading', `Uploading ${what}: ${quarter * 25}%`)
      }
    })
    stop = () => sending.abort()
    const { stored, problem: refused } = await sending
    if (stopped) return
    if (!stored) {
      await progress.done()
      return problem(refused || '')
    }
    progress('stored', `Received ${stored.name} (${sizeWords(stored.size)}).`)
    await progress.done()
    const taken = await answer(url, { action: 'accept', content: { id: stored.id } })
    // A changed answer taken closes its change form, as Keep my answer does.
    if (taken && 'changing' in card.dataset) card.closest('[data-testid=change-form]')?.querySelector('[data-testid=change-cancel]')?.click()
  } finally {
    question.removeEventListener('submit', onSubmit, true)
    watch.disconnect()
    input.disabled = false
  }
})

// Starting a conversation is a plain form post, which also gives the
// browser a new session. A second post of it (a double click, Enter twice)
// while the first is on its way would carry the session the first one
// retired; it is not sent.
document.addEventListener('submit', (evt) => {
  const form = evt.target
  if (form.getAttribute?.('action') !== '/c') return
  if (form.dataset.sending) { evt.preventDefault(); return }
  form.dataset.sending = 'true'
}, true)
// A page brought back by the browser's back button is ready to send again.
addEventListener('pageshow', (evt) => {
  if (evt.persisted) for (const f of document.querySelectorAll('form[data-sending]')) delete f.dataset.sending
})

// One answer in flight per card. A double click on Submit, or Enter
// pressed again, would post the answer twice; while a card's answer is on
// its way, its forms send nothing more and its buttons look busy. The mark
// goes when the server re-renders the card (a morph drops an attribute the
// new card does not have), at once when the answer was refused or never
// arrived, and a second after an answer taken whose card was not drawn
// anew: the answer's response comes before the stream redraws the card,
// and a double click's second click lands in between. The server takes an
// identical resend as success all the same.
document.addEventListener('submit', (evt) => {
  const card = evt.target.closest?.('[data-testid=elicit]')
  if (!card) return
  if (card.dataset.answering) {
    evt.preventDefault()
    evt.stopImmediatePropagation() // Datastar's handler on the form does not run
    return
  }
  card.dataset.answering = 'true'
  card.setAttribute('aria-busy', 'true')
}, true)
document.addEventListener('datastar-fetch', (evt) => {
  const { type, el } = evt.detail || {}
  const card = el?.closest?.('[data-testid=elicit]')
  if (!card) return
  if (type === 'error') card.dataset.answerRefused = 'true'
  if (type !== 'finished' && type !== 'retries-failed') return
  const free = () => {
    delete card.dataset.answering
    delete card.dataset.answerRefused
    card.removeAttribute('aria-busy')
  }
  if (type === 'finished' && !card.dataset.answerRefused) setTimeout(free, 1000)
  else free()
})

// cards: the approval card's editor of arguments. What it holds is sent,
// as the edited arguments, only while it is open: closed, the call runs as
// the model asked. Capturing, so it runs before Datastar sends the form;
// "toggle" does not bubble.
const argsEditor = 'details[data-args-editor]'
document.addEventListener('submit', (evt) => {
  for (const d of evt.target.querySelectorAll?.(argsEditor) ?? []) {
    const text = d.querySelector('textarea')
    if (text) text.disabled = !d.open
  }
}, true)
document.addEventListener('toggle', (evt) => {
  const d = evt.target
  if (!d.matches?.(argsEditor)) return
  const text = d.querySelector('textarea')
  if (!text) return
  text.disabled = !d.open
  if (d.open && d.contains(document.activeElement)) text.focus()
}, true)

// cards: focus and the answer on its way.
//
// Focus follows the questions, for the keyboard and screen readers: a
// question that comes up takes focus (its first field, else its heading),
// unless the user is writing something elsewhere; a refused answer puts
// focus on the first field to fix; an answer taken gives focus back to the
// composer. A card is matched by its elicit id, which its re-renders keep.
// A page that opens on a question (the first message's, a reload) starts
// there too.
const cardSel = '[data-testid=elicit]'
const activeSel = `${cardSel}[data-state=pending][data-queued=false]`
const seenCards = new Set()
let awaitedCard = '' // the card whose answer was last sent from this page
const cardByID = (id) => [...document.querySelectorAll(cardSel)].find((c) => c.dataset.elicitId === id)

// writing reports whether the user has words in a box outside the cards
// (the composer, an edit): a question coming up must not take them away.
// The message just sent is not writing: the question may come before the
// composer is emptied.
let composerSent = null
function writing () {
  const el = document.activeElement
  if (!el || el.closest?.(cardSel)) return false
  if (el.closest('#composer') && el.value === composerSent) return false
  return (el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT' && el.type === 'text')) && el.value.trim() !== ''
}

// firstField is where a card's answer starts: its first input of the
// answer itself (not Decline, Cancel, nor a form marked data-not-first, as
// an approval's reason to deny), else the question.
function firstField (card) {
  const fields = card.querySelectorAll('form:not(.elicit-dismiss, [data-not-first]) :is(input:not([type=hidden]), select, textarea)')
  // A closed <details> hides its content without display: none.
  for (const f of fields) if (f.offsetParent !== null && !f.disabled && !f.closest('details:not([open])')) return f
  return card.querySelector('.elicit-message')
}

function settleFocus () {
  if (awaitedCard) {
    const card = cardByID(awaitedCard)
    if (!card || card.dataset.state !== 'pending') {
      awaitedCard = ''
      const active = document.activeElement
      if (!active || active === document.body || card?.contains(active)) {
        document.querySelector('#composer textarea')?.focus({ preventScroll: true })
      }
    } else {
      const invalid = card.querySelector('[aria-invalid=true]:not(fieldset)')
      if (invalid) {
        awaitedCard = ''
        invalid.focus({ preventScroll: true })
      }
    }
  }
  for (const card of document.querySelectorAll(activeSel)) {
    const id = card.dataset.elicitId
    if (seenCards.has(id)) continue
    seenCards.add(id)
    if (!writing()) firstField(card)?.focus({ preventScroll: true })
  }
}

if (main) { // the chat's <main>, watched above too
  let settling = false
  new MutationObserver(() => {
    if (settling) return
    settling = true
    queueMicrotask(() => { settling = false; settleFocus() })
  }).observe(main, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-state', 'data-queued', 'aria-invalid'] })
  settleFocus()
}

// The answer on its way. Datastar sends a card's form and, while the
// server cannot be reached, tries again by itself (for an answer or a
// message, every 2 s for about a minute: sendRetry in elicit.templ);
// meanwhile the button pressed says "Sending…" and takes no second press,
// the card is aria-busy (the one-in-flight guard above), and the composer's
// Send does the same for a message. The button comes back when
// the request is over; the card shows the answer when the server's new
// render arrives over the stream.
const sendingButtons = new Map() // the request's element → the button pressed
// Capturing, so it runs before Datastar sends the form; after the guard
// above, which stops a second answer before it gets here.
document.addEventListener('submit', (evt) => {
  const form = evt.target
  const card = form.closest?.(cardSel)
  if (card?.dataset.state === 'pending') awaitAnswer(card)
  if ((card || form.id === 'composer') && evt.submitter) sendingButtons.set(form, evt.submitter)
}, true)
document.addEventListener('click', (evt) => {
  const card = evt.target.closest?.('button[data-run-method]')?.closest(cardSel)
  if (card?.dataset.state === 'pending') awaitAnswer(card)
})

// awaitAnswer notes that card's answer is on its way, for settleFocus.
function awaitAnswer (card) {
  awaitedCard = card.dataset.elicitId
  // The problems shown are the last answer's; the next ones are this one's.
  for (const el of card.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid')
}
document.addEventListener('datastar-fetch', (evt) => {
  const { type, el } = evt.detail || {}
  const form = el?.closest?.('form')
  if (!form || !(form.closest(cardSel) || form.id === 'composer')) return
  if (type === 'started') {
    if (form.id === 'composer') composerSent = form.querySelector('textarea')?.value ?? null
    const button = sendingButtons.get(form) || (form.id === 'composer' ? form.querySelector('button[type=submit]') : null)
    if (!button) return
    sendingButtons.set(form, button)
    button.dataset.sending = button.textContent
    button.textContent = 'Sending…'
    button.disabled = true
    form.setAttribute('aria-busy', 'true')
  } else if (type === 'finished' || type === 'retries-failed') {
    const button = sendingButtons.get(form)
    sendingButtons.delete(form)
    form.removeAttribute('aria-busy')
    if (!button || button.dataset.sending === undefined) return
    button.textContent = button.dataset.sending
    delete button.dataset.sending
    button.disabled = false
  }
})

// shell: keyboard. Esc cancels what is in progress, nearest first: an edit
// of a message, a side question being written, the rename or delete of the
// conversation, the conversations drawer or the header's menu on a phone;
// with none of those, it stops the running turn (from the composer or
// outside any field: not from a field of a question card). A field that
// has a use for Esc of its own (a select, a search box, an IME composing)
// keeps it.
document.addEventListener('keydown', (evt) => {
  if (evt.key !== 'Escape' || evt.defaultPrevented || evt.isComposing) return
  const t = evt.target
  if (t.closest?.('select, input[type=search], [role=listbox], [role=menu], dialog')) return
  const visible = (el) => el && el.offsetParent !== null
  const cancel = [...document.querySelectorAll('[data-testid=edit-cancel], .aside-form [type=button], [data-testid=rename-cancel], [data-testid=delete-cancel]')]
    .filter(visible)
  const inside = cancel.find((b) => b.closest('form, [role=group]')?.contains(t))
  const button = inside || cancel[0]
  if (button) {
    evt.preventDefault()
    button.click()
    // Focus goes back to what the cancelled form was opened from, or the composer.
    document.querySelector('[data-testid=composer-input]')?.focus()
    return
  }
  const toggle = document.querySelector(':is([data-testid=nav-toggle], [data-testid=header-more])[aria-expanded=true]')
  if (toggle && visible(toggle)) {
    evt.preventDefault()
    toggle.click()
    toggle.focus()
    return
  }
  // In a field of a question card, Esc is no reason to give up the turn.
  if (t.matches?.('input, textarea, select, [contenteditable]') && !t.matches('[data-testid=composer-input]')) return
  const stop = document.querySelector('[data-testid=stop]')
  if (visible(stop)) {
    evt.preventDefault()
    stop.click()
  }
})

// The header's menu on a phone closes on a tap anywhere else, as menus do.
document.addEventListener('click', (evt) => {
  const toggle = document.querySelector('[data-testid=header-more][aria-expanded=true]')
  if (!toggle || toggle.contains(evt.target) || document.getElementById('header-more')?.contains(evt.target)) return
  toggle.click()
})

// A button that opens a form in place ([data-focus]) puts the cursor in it
// once it shows.
document.addEventListener('click', (evt) => {
  const id = evt.target.closest?.('[data-focus]')?.dataset.focus
  if (!id) return
  let frames = 10 // it shows once Datastar has applied the click
  const focus = () => {
    const el = document.getElementById(id)
    if (el && el.offsetParent !== null) el.focus()
    else if (--frames > 0) requestAnimationFrame(focus)
  }
  requestAnimationFrame(focus)
})

// tree: the branch switcher keeps the keyboard's place. Switching versions
// re-renders the chat, and the switcher that was pressed is drawn anew for
// the version shown (its message or answer is another node), so the focus
// would fall to the page. It goes back to the same switcher — the nth on
// the page — on the button pressed, or on the other one when that end is
// reached.
let branchFocus = null
document.addEventListener('click', (evt) => {
  const button = evt.target.closest?.('[data-branch-move]')
  if (!button || evt.detail !== 0) return // only a key press (a click has detail ≥ 1) moves the focus back
  const switchers = [...document.querySelectorAll('[data-testid=branch-switcher]')]
  branchFocus = { nth: switchers.indexOf(button.closest('[data-testid=branch-switcher]')), move: button.dataset.branchMove, until: Date.now() + 5000 }
})
new MutationObserver(() => {
  if (!branchFocus) return
  if (Date.now() > branchFocus.until) { branchFocus = null; return }
  if (document.activeElement && document.activeElement !== document.body) return
  const switcher = document.querySelectorAll('[data-testid=branch-switcher]')[branchFocus.nth]
  if (!switcher) return
  const other = branchFocus.move === 'prev' ? 'next' : 'prev'
  const target = [branchFocus.move, other].map((m) => switcher.querySelector(`[data-branch-move=${m}]`)).find((b) => b && !b.disabled)
  if (target) { target.focus(); branchFocus = null }
}).observe(document.documentElement, { childList: true, subtree: true })
