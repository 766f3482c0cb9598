// The signer's sign-here method in the browser: a dialog asks for the
// user's name and signs with it. The document's words are shown as text,
// never as markup.
import { implement, declined, cancelled } from '/static/protocol.js'

implement('sign-here', (args) => new Promise((resolve) => {
  const dialog = document.createElement('dialog')
  dialog.setAttribute('aria-labelledby', 'sign-here-title')
  const form = document.createElement('form')
  form.method = 'dialog'
  const title = document.createElement('h2')
  title.id = 'sign-here-title'
  title.textContent = `Sign “${args.document}”`
  const label = document.createElement('label')
  label.textContent = 'Your name '
  const name = document.createElement('input')
  name.name = 'name'
  name.required = true
  name.maxLength = 100
  name.pattern = '.*\\S.*'
  name.autocomplete = 'name'
  label.append(name)
  const sign = button('Sign', 'sign')
  const decline = button('Do not sign', 'decline')
  decline.formNoValidate = true
  form.append(title, label, sign, decline)
  dialog.append(form)
  // Escape closes the dialog with no answer: the question is dismissed.
  dialog.addEventListener('close', () => {
    dialog.remove()
    if (dialog.returnValue === 'sign') {
      resolve({ name: name.value.trim(), signedAt: new Date().toISOString() })
    } else if (dialog.returnValue === 'decline') {
      resolve(declined())
    } else {
      resolve(cancelled())
    }
  })
  document.body.append(dialog)
  dialog.showModal()
}))

function button(text, value) {
  const b = document.createElement('button')
  b.type = 'submit'
  b.value = value
  b.textContent = text
  return b
}
