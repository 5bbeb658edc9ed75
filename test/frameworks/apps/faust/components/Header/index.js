export { default as Header } from './Header';
