export { default as EntryHeader } from './EntryHeader';
