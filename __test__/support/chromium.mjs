// Opens a page in headless Chromium over the DevTools protocol (Node's own WebSocket, no
// dependency): collects console errors and uncaught exceptions, evaluates expressions in the page,
// and takes a screenshot. Needs Node >= 22 (the global WebSocket).
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const CANDIDATES = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter(Boolean)

/** The Chromium executable, or undefined when none is installed. */
export function findChromium() {
  return CANDIDATES.find((path) => existsSync(path))
}

/** Starts Chromium; resolves the browser's DevTools WebSocket URL once it prints it. */
function launch(executable, profile) {
  const child = spawn(executable, [
    '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe'] })
  const url = new Promise((resolve, reject) => {
    let text = ''
    child.stderr.on('data', (chunk) => {
      text += chunk
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(text)
      if (match) resolve(match[1])
    })
    child.on('exit', (code) => reject(new Error(`chromium exited (${code}) before listening: ${text.slice(-500)}`)))
  })
  return { child, url }
}

/** A minimal DevTools protocol session over one WebSocket. */
class Cdp {
  #next = 0
  #pending = new Map()
  #listeners = []

  static async connect(url) {
    const socket = new WebSocket(url)
    await new Promise((resolve, reject) => {
      socket.onopen = resolve
      socket.onerror = () => reject(new Error(`cannot connect to ${url}`))
    })
    return new Cdp(socket)
  }

  constructor(socket) {
    this.socket = socket
    socket.onmessage = ({ data }) => {
      const message = JSON.parse(data)
      if (message.id !== undefined) {
        const { resolve, reject } = this.#pending.get(message.id)
        this.#pending.delete(message.id)
        if (message.error) reject(new Error(`${message.error.message} (${message.error.code})`))
        else resolve(message.result)
      } else {
        for (const listener of this.#listeners) listener(message)
      }
    }
  }

  send(method, params = {}, sessionId) {
    const id = ++this.#next
    this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }))
    return new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject }))
  }

  on(listener) {
    this.#listeners.push(listener)
  }
}

/**
 * Loads `url` in a fresh headless Chromium and returns `{ errors, evaluate(expression), screenshot() }`;
 * `close()` ends the browser. `errors` collects console errors, uncaught exceptions and failed loads.
 */
export async function openPage(executable, url, { width = 1000, height = 800 } = {}) {
  const profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'))
  const browser = launch(executable, profile)
  const close = async () => {
    browser.child.kill()
    await new Promise((resolve) => (browser.child.exitCode !== null ? resolve() : browser.child.once('exit', resolve)))
    await rm(profile, { recursive: true, force: true })
  }
  try {
    const cdp = await Cdp.connect(await browser.url)
    const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' })
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true })
    const send = (method, params) => cdp.send(method, params, sessionId)
    const errors = []
    let loaded
    const load = new Promise((resolve) => { loaded = resolve })
    cdp.on((message) => {
      if (message.sessionId !== sessionId) return
      const { method, params } = message
      if (method === 'Runtime.consoleAPICalled' && (params.type === 'error' || params.type === 'assert')) errors.push(`console.${params.type}: ${params.args.map((a) => a.value ?? a.description).join(' ')}`)
      if (method === 'Runtime.exceptionThrown') errors.push(`exception: ${params.exceptionDetails.exception?.description ?? params.exceptionDetails.text}`)
      if (method === 'Log.entryAdded' && params.entry.level === 'error') errors.push(`log: ${params.entry.text}`)
      if (method === 'Page.loadEventFired') loaded()
    })
    await Promise.all([send('Runtime.enable'), send('Log.enable'), send('Page.enable')])
    await send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false })
    const navigation = await send('Page.navigate', { url })
    if (navigation.errorText) errors.push(`navigation: ${navigation.errorText}`)
    await load
    return {
      errors,
      close,
      async evaluate(expression) {
        const { result, exceptionDetails } = await send('Runtime.evaluate', { expression, returnByValue: true })
        if (exceptionDetails) throw new Error(`evaluate ${expression}: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`)
        return result.value
      },
      async screenshot() {
        const { cssContentSize } = await send('Page.getLayoutMetrics')
        const clip = { x: 0, y: 0, width: cssContentSize.width, height: cssContentSize.height, scale: 1 }
        const { data } = await send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true, clip })
        return Buffer.from(data, 'base64')
      },
    }
  } catch (error) {
    await close()
    throw error
  }
}
