// Answers the page posts itself: a method's outcome (protocol.js) and a
// file question's (glue.js), each with the progress reported before it.
// What the server does with them comes back over the stream, like every
// other change; this module only sends, and says so when the server could
// not be reached or refused without explaining.

export const unreachable = 'The server could not be reached. Check that it is running, then try again.'

// reporter returns a function that posts progress to url in order; its
// done() waits until every report made so far has arrived, so the answer
// never overtakes them. A report is an object as the server takes it
// ({stage, message} or, for a method with typed progress, with data too);
// a report may also be given as a stage and a message in words.
export function reporter (url) {
  let chain = Promise.resolve()
  const report = (stage, message) => {
    const body = typeof stage === 'object' ? stage : (message ? { stage, message } : { stage })
    chain = chain.then(() => post(`${url}/progress`, body)).then(async (res) => {
      // A report the server refuses (data that breaks the method's
      // progress schema) is the implementation's mistake: said where its
      // author looks, not to the user, whose answer may still be taken.
      if (res.status === 422) console.warn(`progress ${JSON.stringify(body)} refused: ${(await res.text()).trim()}`)
    }).catch(() => {})
  }
  report.done = () => chain
  return report
}

// answer posts an answer and reports whether it was taken. A refusal the
// server explains (a 422 shows in the card, anything else in the notice)
// needs nothing more here; a server that cannot be reached does.
export async function answer (url, body) {
  let res
  try {
    res = await post(url, body)
  } catch {
    showNotice(unreachable)
    return false
  }
  if (!res.ok && res.status !== 422) showNotice((await res.text().catch(() => '')).trim() || refusal(res.status))
  return res.ok
}

// post sends body as JSON; same-origin, so the server's cross-site check
// lets it through.
export function post (url, body) {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body)
  })
}

// refusal says what a refusal with status means, for when the server's own
// explanation, which it pushes over the stream, cannot arrive: the stream
// is down, and the page may show a question answered or withdrawn since.
export function refusal (status) {
  switch (String(status)) {
    case '409': return 'That was not done: the conversation moved on meanwhile (the question was answered or withdrawn elsewhere, or the turn stopped). Reload the page to see where it stands.'
    case '404': return 'That was not done: the conversation or the question is no longer there. Reload the page to see where it stands.'
    case '413': return 'That was not done: it is larger than the server takes.'
    case '429': case '503': return 'That was not done: the server is busy for a moment. Try again shortly.'
  }
  if (Number(status) >= 500) return 'That was not done: something went wrong on the server. Try again in a moment.'
  return `The server refused that request (HTTP ${status}).`
}

// showNotice is the fallback explanation, when the server's own (over the
// stream) is not there.
export function showNotice (text) {
  const notice = document.getElementById('notice')
  if (!notice || notice.textContent.trim() !== '') return
  notice.textContent = text
  notice.dataset.fallback = '1'
  notice.classList.add('shown')
}

// showProblem writes what went wrong on the device in card's
// [data-device-problem] slot ('' clears it).
export function showProblem (card, text) {
  const el = card.querySelector('[data-device-problem]')
  if (el) el.textContent = text
}
