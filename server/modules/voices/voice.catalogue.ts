import type { Voice } from '@contract/voice.js';

const voice = (voice_id: string, name: string, gender: 'female' | 'male'): Voice => ({
  voice_id,
  name,
  labels: { gender },
  source: 'builtin',
});

/**
 * The built-in voices every company can choose (ElevenLabs' premade voices, which the `elevenlabs` speech
 * service of the saved payload speaks with), in alphabetical order.
 */
export const BUILTIN_VOICES: readonly Voice[] = [
  voice('pNInz6obpgDQGcFmaJgB', 'Adam', 'male'),
  voice('Xb7hH8MSUJpSbSDYk0k2', 'Alice', 'female'),
  voice('ErXwobaYiN019PkySvjV', 'Antoni', 'male'),
  voice('nPczCjzI2devNBz1zQrb', 'Brian', 'male'),
  voice('N2lVS1w4EtoT3dr4eOWO', 'Callum', 'male'),
  voice('IKne3meq5aSn9XLyUdCD', 'Charlie', 'male'),
  voice('XB0fDUnXU5powFXDhCwa', 'Charlotte', 'female'),
  voice('iP95p4xoKVk53GoZ742B', 'Chris', 'male'),
  voice('onwK4e9ZLuTAKqWW03F9', 'Daniel', 'male'),
  voice('AZnzlk1XvdvUeBnXmlld', 'Domi', 'female'),
  voice('ThT5KcBeYPX3keUQqHPh', 'Dorothy', 'female'),
  voice('MF3mGyEYCl7XYWbV9V6O', 'Elli', 'female'),
  voice('LcfcDJNUP1GQjkzn1xUU', 'Emily', 'female'),
  voice('jsCqWAovK2LkecY7zXl4', 'Freya', 'female'),
  voice('JBFqnCBsd6RMkjVDRZzb', 'George', 'male'),
  voice('oWAxZDx7w5VEj9dCyTzz', 'Grace', 'female'),
  voice('cgSgspJ2msm6clMCkdW9', 'Jessica', 'female'),
  voice('TxGEqnHWrfWFTfGW9XjX', 'Josh', 'male'),
  voice('TX3LPaxmHKxFdv7VOQHJ', 'Liam', 'male'),
  voice('pFZP5JQG7iQjIQuC4Bku', 'Lily', 'female'),
  voice('XrExE9yKIg1WjnnlVkGX', 'Matilda', 'female'),
  voice('piTKgcLEGmPE4e6mEKli', 'Nicole', 'female'),
  voice('21m00Tcm4TlvDq8ikWAM', 'Rachel', 'female'),
  voice('EXAVITQu4vr4xnSDxMaL', 'Sarah', 'female'),
  voice('pMsXgVXv3BLzUgSXRplE', 'Serena', 'female'),
  voice('GBv7mTt0atIp3Br8iCZE', 'Thomas', 'male'),
];
