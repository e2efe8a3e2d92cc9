export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/jest.test.mjs'],
  // ES modules as they are (run with node --experimental-vm-modules). No setup file for
  // Symbol.dispose: jest's node environment defines it in the test's context itself.
  transform: {},
  // Inside the project, not the system's temporary directory.
  cacheDirectory: '<rootDir>/node_modules/.cache/jest',
}
