// Character and model-server settings UI. Import './characters.css' once where these are mounted.
export { CharacterList } from './CharacterList';
export { CharacterEditor, type AvatarOption, type VoiceOption } from './CharacterEditor';
export { PronunciationTable } from './PronunciationTable';
export { ModelServerSettings, type ConnectionState, type ModelServerForm } from './ModelServerSettings';
