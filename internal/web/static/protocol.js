// The page's side of the protocol system. An agent calls a method (package
// protocol, or a kind such as the device's location); the page shows it as
// a card that carries the method's name (data-method), its arguments as
// JSON (data-args) and where its answer goes (data-answer-url). Browser
// code implements a method by name:
//
//	import { implement } from '/static/protocol.js'
//	implement('take-photo', async (args, send, ctx) => { send({ stage: 'capturing' }); return { ... } })
//
// A click on the card's button[data-run-method] runs the implementation
// with the arguments: each send(progress) is posted, in order, to the
// answer's /progress, and what it returns is the answer (accept, with the
// result as its content). It ends otherwise by returning denied(),
// declined() or cancelled(); a refused permission thrown by a browser API
// (NotAllowedError, SecurityError, PermissionDeniedError) is denied too.
// Any other error is shown in the card, and the user may try again.
// ctx.signal aborts when the question is withdrawn or answered elsewhere:
// nothing is posted after that.
//
// A method no module of the page implements, on a card that takes
// "unsupported", is answered so at once, without a click; the page says
// which methods it implements once it has loaded (POST /c/:id/methods), so
// an agent can ask before it calls.
import { answer, post, reporter, showProblem } from './answer.js'

const implementations = new Map()

// implement makes run the page's implementation of the method name. A
// method is implemented once: a second implementation is a mistake in the
// modules, said at once rather than one of them silently winning.
export function implement (name, run) {
  if (typeof name !== 'string' || name === '') throw new TypeError('implement: a method needs a name')
  if (typeof run !== 'function') throw new TypeError(`implement ${name}: the implementation is not a function`)
  if (implementations.has(name)) throw new Error(`implement ${name}: the method is implemented twice on this page`)
  implementations.set(name, run)
}

// Ending is an outcome other than a result: an implementation returns
// one of denied(), declined() or cancelled(). A class of this module's
// own, so that no result can pass for one.
class Ending {
  constructor (action) { this.action = action }
}

// denied ends a method as a permission refused: the user's choice, not an error.
export const denied = () => new Ending('denied')
// declined ends a method as the user saying no.
export const declined = () => new Ending('decline')
// cancelled ends a method as the user closing it unanswered.
export const cancelled = () => new Ending('cancel')

// permissionRefused reports whether err is a browser API refusing a
// permission.
function permissionRefused (err) {
  return ['NotAllowedError', 'SecurityError', 'PermissionDeniedError'].includes(err?.name)
}

const cardSel = '[data-method][data-answer-url]'
const cardAt = (url) => [...document.querySelectorAll(cardSel)].find((c) => c.dataset.answerUrl === url)

// pending reports whether card's question still waits for an answer.
const pending = (card) => card?.closest('[data-testid=elicit]')?.dataset.state === 'pending'

// running holds the methods running now, by answer URL: each one's
// AbortController. A card redrawn by the server (a progress report redraws
// it) is found again by its URL. answered holds those whose answer was
// taken, until the server redraws their card as answered: a second click
// meanwhile would only be refused.
const running = new Map()
const answered = new Set()
const busy = (url) => running.has(url) || answered.has(url)

document.addEventListener('click', (evt) => {
  const button = evt.target.closest?.('button[data-run-method]')
  const card = button?.closest(cardSel)
  if (!card) return
  evt.preventDefault()
  if (button.disabled || busy(card.dataset.answerUrl)) return
  run(card)
})

// run runs card's method and posts its progress and outcome.
async function run (card) {
  const url = card.dataset.answerUrl
  const name = card.dataset.method
  const problem = (text) => { const c = cardAt(url); if (c) showProblem(c, text) }
  problem('')
  const implementation = implementations.get(name)
  if (!implementation) {
    problem('This page has no way to do that. Decline it, or open the conversation where it can be done.')
    return
  }
  let args
  try {
    args = JSON.parse(card.dataset.args || '{}')
  } catch {
    problem('The request came with arguments this page cannot read.')
    return
  }
  const stop = new AbortController()
  running.set(url, stop)
  markBusy()
  const typed = 'progressData' in card.dataset
  const progress = reporter(url)
  const send = (p) => { if (!stop.signal.aborted) progress(report(p, typed)) }
  try {
    let outcome
    try {
      const result = await implementation(args, send, { signal: stop.signal })
      outcome = result instanceof Ending ? { action: result.action } : { action: 'accept', content: result }
    } catch (err) {
      if (!permissionRefused(err)) throw err
      outcome = { action: 'denied' }
    }
    await progress.done()
    if (!stop.signal.aborted && await answer(url, outcome)) answered.add(url)
  } catch (err) {
    if (!stop.signal.aborted) problem(err?.message || String(err))
  } finally {
    running.delete(url)
    markBusy()
  }
}

// report is progress p as the server takes it: the stage (or the status
// of typed progress such as the location's) and a message in words, with
// p itself as the data when the request declares a progress schema
// (typed). A bare string is a stage.
function report (p, typed) {
  if (typeof p !== 'object' || p === null) return { stage: String(p ?? ''), message: '' }
  const r = { stage: String(p.stage ?? p.status ?? ''), message: String(p.message ?? '') }
  if (typed) r.data = p
  return r
}

// markBusy disables the run button of every card whose method runs, and
// enables the others': a redraw of the card by the server brings its
// button back as the server drew it.
function markBusy () {
  for (const card of document.querySelectorAll(cardSel)) {
    const on = busy(card.dataset.answerUrl)
    for (const b of card.querySelectorAll('button[data-run-method]')) {
      if (on && !b.disabled) {
        b.disabled = true
        b.dataset.running = ''
      } else if (!on && 'running' in b.dataset) {
        b.disabled = false
        delete b.dataset.running
      }
    }
    if (on) card.setAttribute('aria-busy', 'true')
    else card.removeAttribute('aria-busy')
  }
}

// stopGone aborts the methods whose question is no longer waiting:
// withdrawn by Stop, answered in another tab, or gone from the page.
function stopGone () {
  for (const [url, stop] of running) {
    if (!pending(cardAt(url))) stop.abort()
  }
  for (const url of answered) {
    if (!pending(cardAt(url))) answered.delete(url)
  }
}

// Cards answered "unsupported", once each.
const toldUnsupported = new Set()

function answerUnsupported () {
  for (const card of document.querySelectorAll(`${cardSel}[data-unsupported]`)) {
    const url = card.dataset.answerUrl
    if (toldUnsupported.has(url) || implementations.has(card.dataset.method) || !pending(card)) continue
    toldUnsupported.add(url)
    post(url, { action: 'unsupported' }).catch(() => {})
  }
}

// announce tells the server which methods this page implements, once per
// page load; a server that does not take it is no reason to complain.
function announce () {
  const conv = location.pathname.match(/^\/c\/([^/]+)$/)?.[1]
  if (!conv) return
  post(`/c/${conv}/methods`, { methods: [...implementations.keys()].sort() }).catch(() => {})
}

// The implementations are registered by the page's module scripts, which
// run in order after this one and all before DOMContentLoaded: only then
// does a method nobody implements count as unsupported.
const ready = new Promise((resolve) => {
  if (document.readyState === 'complete') resolve()
  document.addEventListener('DOMContentLoaded', resolve, { once: true })
  addEventListener('load', resolve, { once: true })
})

ready.then(() => {
  announce()
  let queued = false
  const look = () => {
    queued = false
    markBusy()
    stopGone()
    answerUnsupported()
  }
  // Datastar patches cards in and redraws them; each change is looked at
  // once, after the patch.
  new MutationObserver(() => {
    if (queued) return
    queued = true
    queueMicrotask(look)
  }).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-state', 'data-method'] })
  look()
})
