/**
 * The time zone of a phone number (a batch calls each recipient inside its calling window in the
 * recipient's own time zone, derived from the number, else the batch's).
 *
 * - E.164 country calling codes of countries that keep one time zone name their zone (COUNTRY_ZONES;
 *   calling codes are prefix-free, so the first 1 to 3 digits that match decide).
 * - +1 (the North American Numbering Plan) looks the area code up in NANP_ZONES: US and Canadian area
 *   codes by zone, and the Caribbean and Pacific members that have their own code. An area code whose
 *   region straddles two zones is listed under the zone most of its numbers are in.
 * - Countries with several zones (Russia, Brazil, Mexico, Australia, Indonesia, ...), unknown codes and
 *   area codes not listed: null, and the batch's time zone is used.
 */

/** Single-zone countries by calling code. */
const COUNTRY_ZONES: Record<string, string> = {
  '20': 'Africa/Cairo',
  '27': 'Africa/Johannesburg',
  '30': 'Europe/Athens',
  '31': 'Europe/Amsterdam',
  '32': 'Europe/Brussels',
  '33': 'Europe/Paris',
  '36': 'Europe/Budapest',
  '39': 'Europe/Rome',
  '40': 'Europe/Bucharest',
  '41': 'Europe/Zurich',
  '43': 'Europe/Vienna',
  '44': 'Europe/London',
  '45': 'Europe/Copenhagen',
  '46': 'Europe/Stockholm',
  '47': 'Europe/Oslo',
  '48': 'Europe/Warsaw',
  '49': 'Europe/Berlin',
  '51': 'America/Lima',
  '53': 'America/Havana',
  '54': 'America/Argentina/Buenos_Aires',
  '57': 'America/Bogota',
  '58': 'America/Caracas',
  '60': 'Asia/Kuala_Lumpur',
  '63': 'Asia/Manila',
  '64': 'Pacific/Auckland',
  '65': 'Asia/Singapore',
  '66': 'Asia/Bangkok',
  '81': 'Asia/Tokyo',
  '82': 'Asia/Seoul',
  '84': 'Asia/Ho_Chi_Minh',
  '86': 'Asia/Shanghai',
  '90': 'Europe/Istanbul',
  '91': 'Asia/Kolkata',
  '92': 'Asia/Karachi',
  '94': 'Asia/Colombo',
  '95': 'Asia/Yangon',
  '98': 'Asia/Tehran',
  '212': 'Africa/Casablanca',
  '213': 'Africa/Algiers',
  '216': 'Africa/Tunis',
  '233': 'Africa/Accra',
  '234': 'Africa/Lagos',
  '254': 'Africa/Nairobi',
  '255': 'Africa/Dar_es_Salaam',
  '256': 'Africa/Kampala',
  '353': 'Europe/Dublin',
  '354': 'Atlantic/Reykjavik',
  '356': 'Europe/Malta',
  '357': 'Asia/Nicosia',
  '358': 'Europe/Helsinki',
  '359': 'Europe/Sofia',
  '370': 'Europe/Vilnius',
  '371': 'Europe/Riga',
  '372': 'Europe/Tallinn',
  '352': 'Europe/Luxembourg',
  '380': 'Europe/Kyiv',
  '385': 'Europe/Zagreb',
  '386': 'Europe/Ljubljana',
  '420': 'Europe/Prague',
  '421': 'Europe/Bratislava',
  '502': 'America/Guatemala',
  '503': 'America/El_Salvador',
  '504': 'America/Tegucigalpa',
  '505': 'America/Managua',
  '506': 'America/Costa_Rica',
  '507': 'America/Panama',
  '591': 'America/La_Paz',
  '595': 'America/Asuncion',
  '598': 'America/Montevideo',
  '852': 'Asia/Hong_Kong',
  '853': 'Asia/Macau',
  '880': 'Asia/Dhaka',
  '886': 'Asia/Taipei',
  '965': 'Asia/Kuwait',
  '966': 'Asia/Riyadh',
  '968': 'Asia/Muscat',
  '971': 'Asia/Dubai',
  '972': 'Asia/Jerusalem',
  '973': 'Asia/Bahrain',
  '974': 'Asia/Qatar',
  '977': 'Asia/Kathmandu',
};

/** NANP area codes by zone (space-separated, compact). */
const NANP_BY_ZONE: Record<string, string> = {
  'America/New_York':
    // CT DE DC FL GA ME MD MA MI NH NJ NY NC OH PA RI SC VT VA WV, eastern IN KY TN
    '203 475 860 959 302 202 771 239 305 321 352 386 407 448 561 656 689 727 754 772 786 813 850 863 904 941 954 ' +
    '229 404 470 478 678 706 762 770 912 943 207 227 240 301 410 443 667 339 351 413 508 617 774 781 857 978 ' +
    '231 248 269 313 517 586 616 679 734 810 906 947 989 603 201 551 609 640 732 848 856 862 908 973 ' +
    '212 315 332 347 363 516 518 585 607 631 646 680 716 718 838 845 914 917 929 934 ' +
    '252 336 472 704 743 828 910 919 980 984 216 220 234 283 326 330 380 419 436 440 513 567 614 740 937 ' +
    '215 223 267 272 412 445 484 570 582 610 717 724 814 835 878 401 803 821 839 843 854 864 802 ' +
    '276 434 540 571 686 703 757 804 826 948 304 681 260 317 463 574 765 812 930 502 606 859 423 865',
  // Ontario and Quebec
  'America/Toronto':
    '226 249 289 343 365 382 416 437 519 548 613 647 683 705 742 753 807 905 942 263 354 367 418 438 450 468 514 579 581 819 873',
  'America/Chicago':
    // AL AR IL IA KS LA MN MS MO NE ND SD OK TX WI, western IN KY TN
    '205 251 256 334 659 938 327 479 501 870 217 224 309 312 331 447 464 618 630 708 730 773 779 815 847 861 872 ' +
    '319 515 563 641 712 316 620 785 913 225 318 337 504 985 218 320 507 612 651 763 952 228 601 662 769 ' +
    '314 417 557 573 636 660 816 975 308 402 531 701 605 405 539 572 580 918 ' +
    '210 214 254 281 325 346 361 409 430 432 469 512 682 713 726 737 806 817 830 832 903 936 940 945 956 972 979 ' +
    '262 274 414 534 608 715 920 219 270 364 615 629 731 901 931',
  'America/Winnipeg': '204 431 584',
  'America/Regina': '306 474 639',
  // CO ID MT NM UT WY, El Paso
  'America/Denver': '303 719 720 970 983 208 986 406 505 575 385 435 801 307 915',
  'America/Edmonton': '368 403 587 780 825',
  'America/Phoenix': '480 520 602 623 928',
  // CA NV OR WA
  'America/Los_Angeles':
    '209 213 279 310 323 341 350 408 415 424 442 510 530 559 562 619 626 628 650 657 661 669 707 714 747 760 805 818 ' +
    '820 831 840 858 909 916 925 949 951 702 725 775 458 503 541 971 206 253 360 425 509 564',
  'America/Vancouver': '236 250 257 604 672 778',
  'America/Anchorage': '907',
  'Pacific/Honolulu': '808',
  'America/Halifax': '902 782 506 428',
  'America/St_Johns': '709 879',
  'America/Puerto_Rico': '787 939',
  'America/St_Thomas': '340',
  'America/Jamaica': '876 658',
  'America/Santo_Domingo': '809 829 849',
  'America/Port_of_Spain': '868',
  'America/Nassau': '242',
  'America/Barbados': '246',
  'Atlantic/Bermuda': '441',
  'America/Cayman': '345',
  'Pacific/Guam': '671',
};

const NANP_ZONES = new Map<string, string>();
for (const [zone, codes] of Object.entries(NANP_BY_ZONE)) for (const code of codes.split(' ')) NANP_ZONES.set(code, zone);

/** Every zone a number can be given (the dispatcher asks which of them are inside a window). */
export const NUMBER_ZONES: readonly string[] = [...new Set([...Object.values(COUNTRY_ZONES), ...Object.keys(NANP_BY_ZONE)])];

/** The time zone of an E.164 number, or null when the number does not tell one. */
export function zoneOfNumber(e164: string): string | null {
  if (!e164.startsWith('+')) return null;
  if (e164.startsWith('+1')) return NANP_ZONES.get(e164.slice(2, 5)) ?? null;
  for (let len = 1; len <= 3; len++) {
    const zone = COUNTRY_ZONES[e164.slice(1, 1 + len)];
    if (zone) return zone;
  }
  return null;
}
