/**
 * The table of Java 17's time zone ids with their short US display names and raw offsets.
 *
 * `Intl` knows offsets but not Java's short names (`CET`/`CEST`, `PST`/`PDT`, `GMT-05:00` for
 * `Etc/GMT+5`) nor Java's own aliases (`PST`, `SystemV/EST5`, `ECT`). `java.util.Date.toString()`
 * prints those names, so `java-time-zones.ts` takes them, and the raw offsets Java uses before
 * 1900, from this table. Data only.
 */

/**
 * Java 17.0.15 (tzdata 2025a) short display names and raw offsets, from
 * `TimeZone.getDisplayName(false|true, TimeZone.SHORT, Locale.US)` and `getRawOffset()` for every
 * id of `TimeZone.getAvailableIDs()`. Entries: standard name, daylight name, raw offset in
 * minutes, space-separated ids.
 */
export const JAVA_ZONES: readonly (readonly [standard: string, daylight: string, rawMinutes: number, ids: string])[] = [
  ['GMT-12:00', 'GMT-12:00', -720, 'Etc/GMT+12'],
  ['GMT-11:00', 'GMT-11:00', -660, 'Etc/GMT+11'],
  ['NUT', 'NUST', -660, 'Pacific/Niue'],
  ['SST', 'SDT', -660, 'Pacific/Midway Pacific/Pago_Pago Pacific/Samoa US/Samoa'],
  ['CKT', 'CKHST', -600, 'Pacific/Rarotonga'],
  ['GMT-10:00', 'GMT-10:00', -600, 'Etc/GMT+10'],
  ['HAST', 'HADT', -600, 'America/Adak America/Atka Pacific/Johnston US/Aleutian'],
  ['HST', 'HDT', -600, 'Pacific/Honolulu SystemV/HST10 US/Hawaii'],
  ['HST', 'HST', -600, 'HST'],
  ['TAHT', 'TAHST', -600, 'Pacific/Tahiti'],
  ['MART', 'MARST', -570, 'Pacific/Marquesas'],
  ['AKST', 'AKDT', -540,
    'America/Anchorage America/Juneau America/Metlakatla America/Nome America/Sitka ' +
    'America/Yakutat SystemV/YST9YDT US/Alaska AST'],
  ['AKST', 'AKST', -540, 'SystemV/YST9'],
  ['GAMT', 'GAMST', -540, 'Pacific/Gambier'],
  ['GMT-09:00', 'GMT-09:00', -540, 'Etc/GMT+9'],
  ['GMT-08:00', 'GMT-08:00', -480, 'Etc/GMT+8'],
  ['PST', 'PDT', -480,
    'America/Ensenada America/Los_Angeles America/Santa_Isabel America/Tijuana ' +
    'America/Vancouver Canada/Pacific Mexico/BajaNorte PST8PDT Pacific/Pitcairn ' +
    'SystemV/PST8PDT US/Pacific PST'],
  ['PST', 'PST', -480, 'SystemV/PST8'],
  ['GMT-07:00', 'GMT-07:00', -420, 'Etc/GMT+7'],
  ['MST', 'MDT', -420,
    'America/Boise America/Cambridge_Bay America/Ciudad_Juarez America/Creston ' +
    'America/Dawson America/Dawson_Creek America/Denver America/Edmonton ' +
    'America/Fort_Nelson America/Hermosillo America/Inuvik America/Mazatlan ' +
    'America/Phoenix America/Shiprock America/Whitehorse America/Yellowknife ' +
    'Canada/Mountain Canada/Yukon MST7MDT Mexico/BajaSur Navajo SystemV/MST7 ' +
    'SystemV/MST7MDT US/Arizona US/Mountain PNT'],
  ['MST', 'MST', -420, 'MST'],
  ['CST', 'CDT', -360,
    'America/Bahia_Banderas America/Belize America/Chicago America/Chihuahua ' +
    'America/Costa_Rica America/El_Salvador America/Guatemala America/Indiana/Knox ' +
    'America/Indiana/Tell_City America/Knox_IN America/Managua America/Matamoros ' +
    'America/Menominee America/Merida America/Mexico_City America/Monterrey ' +
    'America/North_Dakota/Beulah America/North_Dakota/Center ' +
    'America/North_Dakota/New_Salem America/Ojinaga America/Rainy_River ' +
    'America/Rankin_Inlet America/Regina America/Resolute America/Swift_Current ' +
    'America/Tegucigalpa America/Winnipeg CST6CDT Canada/Central Canada/Saskatchewan ' +
    'Mexico/General SystemV/CST6 SystemV/CST6CDT US/Central US/Indiana-Starke CST'],
  ['EAST', 'EASST', -360, 'Chile/EasterIsland Pacific/Easter'],
  ['GALT', 'GALST', -360, 'Pacific/Galapagos'],
  ['GMT-06:00', 'GMT-06:00', -360, 'Etc/GMT+6'],
  ['ACT', 'ACST', -300, 'America/Eirunepe America/Porto_Acre America/Rio_Branco Brazil/Acre'],
  ['COT', 'COST', -300, 'America/Bogota'],
  ['CST', 'CDT', -300, 'America/Havana Cuba'],
  ['ECT', 'ECST', -300, 'America/Guayaquil'],
  ['EST', 'EDT', -300,
    'America/Atikokan America/Cancun America/Cayman America/Coral_Harbour America/Detroit ' +
    'America/Fort_Wayne America/Grand_Turk America/Indiana/Indianapolis ' +
    'America/Indiana/Marengo America/Indiana/Petersburg America/Indiana/Vevay ' +
    'America/Indiana/Vincennes America/Indiana/Winamac America/Indianapolis ' +
    'America/Iqaluit America/Jamaica America/Kentucky/Louisville ' +
    'America/Kentucky/Monticello America/Louisville America/Montreal America/Nassau ' +
    'America/New_York America/Nipigon America/Panama America/Pangnirtung ' +
    'America/Port-au-Prince America/Thunder_Bay America/Toronto Canada/Eastern EST5EDT ' +
    'Jamaica SystemV/EST5 SystemV/EST5EDT US/East-Indiana US/Eastern US/Michigan IET'],
  ['EST', 'EST', -300, 'EST'],
  ['GMT-05:00', 'GMT-05:00', -300, 'Etc/GMT+5'],
  ['PET', 'PEST', -300, 'America/Lima'],
  ['AMT', 'AMST', -240,
    'America/Boa_Vista America/Campo_Grande America/Cuiaba America/Manaus ' +
    'America/Porto_Velho Brazil/West'],
  ['AST', 'ADT', -240,
    'America/Anguilla America/Antigua America/Aruba America/Barbados America/Blanc-Sablon ' +
    'America/Curacao America/Dominica America/Glace_Bay America/Goose_Bay America/Grenada ' +
    'America/Guadeloupe America/Halifax America/Kralendijk America/Lower_Princes ' +
    'America/Marigot America/Martinique America/Moncton America/Montserrat ' +
    'America/Port_of_Spain America/Puerto_Rico America/Santo_Domingo ' +
    'America/St_Barthelemy America/St_Kitts America/St_Lucia America/St_Thomas ' +
    'America/St_Vincent America/Thule America/Tortola America/Virgin Atlantic/Bermuda ' +
    'Canada/Atlantic SystemV/AST4 SystemV/AST4ADT PRT'],
  ['BOT', 'BOST', -240, 'America/La_Paz'],
  ['CLT', 'CLST', -240, 'America/Santiago Chile/Continental'],
  ['GMT-04:00', 'GMT-04:00', -240, 'Etc/GMT+4'],
  ['GYT', 'GYST', -240, 'America/Guyana'],
  ['VET', 'VEST', -240, 'America/Caracas'],
  ['NST', 'NDT', -210, 'America/St_Johns Canada/Newfoundland CNT'],
  ['ART', 'ARST', -180,
    'America/Argentina/Buenos_Aires America/Argentina/Catamarca ' +
    'America/Argentina/ComodRivadavia America/Argentina/Cordoba America/Argentina/Jujuy ' +
    'America/Argentina/La_Rioja America/Argentina/Mendoza America/Argentina/Rio_Gallegos ' +
    'America/Argentina/Salta America/Argentina/San_Juan America/Argentina/San_Luis ' +
    'America/Argentina/Tucuman America/Argentina/Ushuaia America/Buenos_Aires ' +
    'America/Catamarca America/Cordoba America/Jujuy America/Mendoza America/Rosario AGT'],
  ['BRT', 'BRST', -180,
    'America/Araguaina America/Bahia America/Belem America/Fortaleza America/Maceio ' +
    'America/Recife America/Santarem America/Sao_Paulo Brazil/East BET'],
  ['CLT', 'CLST', -180, 'Antarctica/Palmer'],
  ['FKT', 'FKST', -180, 'Atlantic/Stanley'],
  ['GFT', 'GFST', -180, 'America/Cayenne'],
  ['GMT-03:00', 'GMT-03:00', -180, 'America/Punta_Arenas Etc/GMT+3'],
  ['PMST', 'PMDT', -180, 'America/Miquelon'],
  ['PYT', 'PYST', -180, 'America/Asuncion'],
  ['ROTT', 'ROTST', -180, 'Antarctica/Rothera'],
  ['SRT', 'SRST', -180, 'America/Paramaribo'],
  ['UYT', 'UYST', -180, 'America/Montevideo'],
  ['EGT', 'EGST', -120, 'America/Scoresbysund'],
  ['FNT', 'FNST', -120, 'America/Noronha Brazil/DeNoronha'],
  ['GMT-02:00', 'GMT-02:00', -120, 'Etc/GMT+2'],
  ['GST', 'GDT', -120, 'Atlantic/South_Georgia'],
  ['WGT', 'WGST', -120, 'America/Godthab America/Nuuk'],
  ['AZOT', 'AZOST', -60, 'Atlantic/Azores'],
  ['CVT', 'CVST', -60, 'Atlantic/Cape_Verde'],
  ['GMT-01:00', 'GMT-01:00', -60, 'Etc/GMT+1'],
  ['GMT', 'BST', 0,
    'Europe/Belfast Europe/Guernsey Europe/Isle_of_Man Europe/Jersey Europe/London GB ' +
    'GB-Eire'],
  ['GMT', 'CEST', 0, 'Antarctica/Troll'],
  ['GMT', 'GHST', 0, 'Africa/Accra'],
  ['GMT', 'GMT', 0,
    'Africa/Abidjan Africa/Bamako Africa/Banjul Africa/Bissau Africa/Conakry Africa/Dakar ' +
    'Africa/Freetown Africa/Lome Africa/Monrovia Africa/Nouakchott Africa/Ouagadougou ' +
    'Africa/Sao_Tome Africa/Timbuktu America/Danmarkshavn Atlantic/Reykjavik ' +
    'Atlantic/St_Helena Etc/GMT Etc/GMT+0 Etc/GMT-0 Etc/GMT0 Etc/Greenwich GMT GMT0 ' +
    'Greenwich Iceland'],
  ['GMT', 'IST', 0, 'Eire Europe/Dublin'],
  ['UTC', 'UTC', 0, 'Etc/UCT Etc/UTC Etc/Universal Etc/Zulu UCT UTC Universal Zulu'],
  ['WET', 'WEST', 0,
    'Africa/Casablanca Africa/El_Aaiun Atlantic/Canary Atlantic/Faeroe Atlantic/Faroe ' +
    'Atlantic/Madeira Europe/Lisbon Portugal WET'],
  ['CAT', 'WAT', 60, 'Africa/Windhoek'],
  ['CET', 'CEST', 60,
    'Africa/Algiers Africa/Ceuta Africa/Tunis Arctic/Longyearbyen Atlantic/Jan_Mayen CET ' +
    'Europe/Amsterdam Europe/Andorra Europe/Belgrade Europe/Berlin Europe/Bratislava ' +
    'Europe/Brussels Europe/Budapest Europe/Busingen Europe/Copenhagen Europe/Gibraltar ' +
    'Europe/Ljubljana Europe/Luxembourg Europe/Madrid Europe/Malta Europe/Monaco ' +
    'Europe/Oslo Europe/Paris Europe/Podgorica Europe/Prague Europe/Rome ' +
    'Europe/San_Marino Europe/Sarajevo Europe/Skopje Europe/Stockholm Europe/Tirane ' +
    'Europe/Vaduz Europe/Vatican Europe/Vienna Europe/Warsaw Europe/Zagreb Europe/Zurich ' +
    'Poland ECT'],
  ['GMT+01:00', 'GMT+01:00', 60, 'Etc/GMT-1'],
  ['MET', 'MEST', 60, 'MET'],
  ['WAT', 'WAST', 60,
    'Africa/Bangui Africa/Brazzaville Africa/Douala Africa/Kinshasa Africa/Lagos ' +
    'Africa/Libreville Africa/Luanda Africa/Malabo Africa/Ndjamena Africa/Niamey ' +
    'Africa/Porto-Novo'],
  ['CAT', 'CAST', 120,
    'Africa/Blantyre Africa/Bujumbura Africa/Gaborone Africa/Harare Africa/Juba ' +
    'Africa/Khartoum Africa/Kigali Africa/Lubumbashi Africa/Lusaka Africa/Maputo CAT'],
  ['EET', 'EEST', 120,
    'Africa/Cairo Africa/Tripoli Asia/Beirut Asia/Famagusta Asia/Gaza Asia/Hebron ' +
    'Asia/Nicosia EET Egypt Europe/Athens Europe/Bucharest Europe/Chisinau ' +
    'Europe/Helsinki Europe/Kaliningrad Europe/Kiev Europe/Kyiv Europe/Mariehamn ' +
    'Europe/Nicosia Europe/Riga Europe/Sofia Europe/Tallinn Europe/Tiraspol ' +
    'Europe/Uzhgorod Europe/Vilnius Europe/Zaporozhye Libya ART'],
  ['GMT+02:00', 'GMT+02:00', 120, 'Etc/GMT-2'],
  ['IST', 'IDT', 120, 'Asia/Jerusalem Asia/Tel_Aviv Israel'],
  ['SAST', 'SAST', 120, 'Africa/Johannesburg Africa/Maseru Africa/Mbabane'],
  ['AST', 'ADT', 180, 'Asia/Aden Asia/Baghdad Asia/Bahrain Asia/Kuwait Asia/Qatar Asia/Riyadh'],
  ['EAT', 'EAST', 180,
    'Africa/Addis_Ababa Africa/Asmara Africa/Asmera Africa/Dar_es_Salaam Africa/Djibouti ' +
    'Africa/Kampala Africa/Mogadishu Africa/Nairobi Indian/Antananarivo Indian/Comoro ' +
    'Indian/Mayotte EAT'],
  ['EET', 'EEST', 180, 'Asia/Amman Asia/Damascus'],
  ['GMT+03:00', 'GMT+03:00', 180, 'Etc/GMT-3'],
  ['MSK', 'MSD', 180,
    'Europe/Kirov Europe/Minsk Europe/Moscow Europe/Simferopol Europe/Volgograd W-SU'],
  ['SYOT', 'SYOST', 180, 'Antarctica/Syowa'],
  ['TRT', 'TRST', 180, 'Asia/Istanbul Europe/Istanbul Turkey'],
  ['IRST', 'IRDT', 210, 'Asia/Tehran Iran'],
  ['AMT', 'AMST', 240, 'Asia/Yerevan NET'],
  ['AZT', 'AZST', 240, 'Asia/Baku'],
  ['GET', 'GEST', 240, 'Asia/Tbilisi'],
  ['GMT+04:00', 'GMT+04:00', 240, 'Etc/GMT-4 Europe/Astrakhan Europe/Saratov Europe/Ulyanovsk'],
  ['GST', 'GDT', 240, 'Asia/Dubai Asia/Muscat'],
  ['MUT', 'MUST', 240, 'Indian/Mauritius'],
  ['RET', 'REST', 240, 'Indian/Reunion'],
  ['SAMT', 'SAMST', 240, 'Europe/Samara'],
  ['SCT', 'SCST', 240, 'Indian/Mahe'],
  ['AFT', 'AFST', 270, 'Asia/Kabul'],
  ['ALMT', 'ALMST', 300, 'Asia/Almaty'],
  ['AQTT', 'AQTST', 300, 'Asia/Aqtau Asia/Aqtobe'],
  ['GMT+05:00', 'GMT+05:00', 300, 'Asia/Atyrau Etc/GMT-5'],
  ['MAWT', 'MAWST', 300, 'Antarctica/Mawson'],
  ['MVT', 'MVST', 300, 'Indian/Maldives'],
  ['ORAT', 'ORAST', 300, 'Asia/Oral'],
  ['PKT', 'PKST', 300, 'Asia/Karachi PLT'],
  ['QOST', 'QOSST', 300, 'Asia/Qostanay'],
  ['QYZT', 'QYZST', 300, 'Asia/Qyzylorda'],
  ['TFT', 'TFST', 300, 'Indian/Kerguelen'],
  ['TJT', 'TJST', 300, 'Asia/Dushanbe'],
  ['TMT', 'TMST', 300, 'Asia/Ashgabat Asia/Ashkhabad'],
  ['UZT', 'UZST', 300, 'Asia/Samarkand Asia/Tashkent'],
  ['VOST', 'VOSST', 300, 'Antarctica/Vostok'],
  ['YEKT', 'YEKST', 300, 'Asia/Yekaterinburg'],
  ['IST', 'IDT', 330, 'Asia/Calcutta Asia/Colombo Asia/Kolkata IST'],
  ['NPT', 'NPST', 345, 'Asia/Kathmandu Asia/Katmandu'],
  ['BDT', 'BDST', 360, 'Asia/Dacca Asia/Dhaka BST'],
  ['BTT', 'BTST', 360, 'Asia/Thimbu Asia/Thimphu'],
  ['GMT+06:00', 'GMT+06:00', 360, 'Etc/GMT-6'],
  ['IOT', 'IOST', 360, 'Indian/Chagos'],
  ['KGT', 'KGST', 360, 'Asia/Bishkek'],
  ['OMST', 'OMSST', 360, 'Asia/Omsk'],
  ['XJT', 'XJDT', 360, 'Asia/Kashgar Asia/Urumqi'],
  ['CCT', 'CCST', 390, 'Indian/Cocos'],
  ['MMT', 'MMST', 390, 'Asia/Rangoon Asia/Yangon'],
  ['CXT', 'CXST', 420, 'Indian/Christmas'],
  ['DAVT', 'DAVST', 420, 'Antarctica/Davis'],
  ['GMT+07:00', 'GMT+07:00', 420, 'Asia/Barnaul Asia/Tomsk Etc/GMT-7'],
  ['HOVT', 'HOVST', 420, 'Asia/Hovd'],
  ['ICT', 'ICST', 420,
    'Asia/Bangkok Asia/Ho_Chi_Minh Asia/Phnom_Penh Asia/Saigon Asia/Vientiane VST'],
  ['KRAT', 'KRAST', 420, 'Asia/Krasnoyarsk Asia/Novokuznetsk'],
  ['NOVT', 'NOVST', 420, 'Asia/Novosibirsk'],
  ['WIB', 'WIST', 420, 'Asia/Jakarta Asia/Pontianak'],
  ['AWST', 'AWDT', 480, 'Antarctica/Casey Australia/Perth Australia/West'],
  ['BNT', 'BNST', 480, 'Asia/Brunei'],
  ['CHOT', 'CHOST', 480, 'Asia/Choibalsan'],
  ['CST', 'CDT', 480,
    'Asia/Chongqing Asia/Chungking Asia/Harbin Asia/Macao Asia/Macau Asia/Shanghai ' +
    'Asia/Taipei PRC CTT'],
  ['GMT+08:00', 'GMT+08:00', 480, 'Etc/GMT-8'],
  ['HKT', 'HKST', 480, 'Asia/Hong_Kong Hongkong'],
  ['IRKT', 'IRKST', 480, 'Asia/Irkutsk'],
  ['MYT', 'MYST', 480, 'Asia/Kuala_Lumpur Asia/Kuching'],
  ['PST', 'PDT', 480, 'Asia/Manila'],
  ['SGT', 'SGST', 480, 'Asia/Singapore Singapore'],
  ['ULAT', 'ULAST', 480, 'Asia/Ulaanbaatar Asia/Ulan_Bator'],
  ['WITA', 'CIST', 480, 'Asia/Makassar Asia/Ujung_Pandang'],
  ['ACWST', 'ACWDT', 525, 'Australia/Eucla'],
  ['GMT+09:00', 'GMT+09:00', 540, 'Etc/GMT-9'],
  ['JST', 'JDT', 540, 'Asia/Tokyo Japan JST'],
  ['KST', 'KDT', 540, 'Asia/Pyongyang Asia/Seoul ROK'],
  ['PWT', 'PWST', 540, 'Pacific/Palau'],
  ['TLT', 'TLST', 540, 'Asia/Dili'],
  ['WIT', 'EIST', 540, 'Asia/Jayapura'],
  ['YAKT', 'YAKST', 540, 'Asia/Chita Asia/Khandyga Asia/Yakutsk'],
  ['ACST', 'ACDT', 570,
    'Australia/Adelaide Australia/Broken_Hill Australia/Darwin Australia/North ' +
    'Australia/South Australia/Yancowinna ACT'],
  ['AEST', 'AEDT', 600,
    'Antarctica/Macquarie Australia/ACT Australia/Brisbane Australia/Canberra ' +
    'Australia/Currie Australia/Hobart Australia/Lindeman Australia/Melbourne ' +
    'Australia/NSW Australia/Queensland Australia/Sydney Australia/Tasmania ' +
    'Australia/Victoria AET'],
  ['CHUT', 'CHUST', 600, 'Pacific/Chuuk Pacific/Truk Pacific/Yap'],
  ['ChST', 'ChDT', 600, 'Pacific/Guam Pacific/Saipan'],
  ['DDUT', 'DDUST', 600, 'Antarctica/DumontDUrville'],
  ['GMT+10:00', 'GMT+10:00', 600, 'Etc/GMT-10'],
  ['PGT', 'PGST', 600, 'Pacific/Port_Moresby'],
  ['VLAT', 'VLAST', 600, 'Asia/Ust-Nera Asia/Vladivostok'],
  ['LHST', 'LHDT', 630, 'Australia/LHI Australia/Lord_Howe'],
  ['BST', 'BST', 660, 'Pacific/Bougainville'],
  ['GMT+11:00', 'GMT+11:00', 660, 'Etc/GMT-11'],
  ['KOST', 'KOSST', 660, 'Pacific/Kosrae'],
  ['MAGT', 'MAGST', 660, 'Asia/Magadan'],
  ['NCT', 'NCST', 660, 'Pacific/Noumea'],
  ['NFT', 'NFST', 660, 'Pacific/Norfolk'],
  ['PONT', 'PONST', 660, 'Pacific/Pohnpei Pacific/Ponape'],
  ['SAKT', 'SAKST', 660, 'Asia/Sakhalin'],
  ['SBT', 'SBST', 660, 'Pacific/Guadalcanal SST'],
  ['SRET', 'SREDT', 660, 'Asia/Srednekolymsk'],
  ['VUT', 'VUST', 660, 'Pacific/Efate'],
  ['ANAT', 'ANAST', 720, 'Asia/Anadyr'],
  ['FJT', 'FJST', 720, 'Pacific/Fiji'],
  ['GILT', 'GILST', 720, 'Pacific/Tarawa'],
  ['GMT+12:00', 'GMT+12:00', 720, 'Etc/GMT-12'],
  ['MHT', 'MHST', 720, 'Kwajalein Pacific/Kwajalein Pacific/Majuro'],
  ['NRT', 'NRST', 720, 'Pacific/Nauru'],
  ['NZST', 'NZDT', 720, 'Antarctica/McMurdo Antarctica/South_Pole NZ Pacific/Auckland NST'],
  ['PETT', 'PETST', 720, 'Asia/Kamchatka'],
  ['TVT', 'TVST', 720, 'Pacific/Funafuti'],
  ['WAKT', 'WAKST', 720, 'Pacific/Wake'],
  ['WFT', 'WFST', 720, 'Pacific/Wallis'],
  ['CHAST', 'CHADT', 765, 'NZ-CHAT Pacific/Chatham'],
  ['GMT+13:00', 'GMT+13:00', 780, 'Etc/GMT-13 Pacific/Kanton'],
  ['PHOT', 'PHOST', 780, 'Pacific/Enderbury'],
  ['TKT', 'TKST', 780, 'Pacific/Fakaofo'],
  ['TOT', 'TOST', 780, 'Pacific/Tongatapu'],
  ['WSST', 'WSDT', 780, 'Pacific/Apia MIT'],
  ['GMT+14:00', 'GMT+14:00', 840, 'Etc/GMT-14'],
  ['LINT', 'LINST', 840, 'Pacific/Kiritimati'],
];
