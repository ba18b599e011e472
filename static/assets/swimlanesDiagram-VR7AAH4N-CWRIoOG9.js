import{r as e,t}from"./chunk-SHT3W25Y-C4iH6BBE.js";import"./chunk-POPQ4Y6H-XvVimQyn.js";import"./mermaid.core-QNVSu8Jh.js";import"./chunk-F27PBJKO-Bq_drbAY.js";import"./chunk-L3NEJ4N5-B0Kd1k0j.js";import"./chunk-OSK3NFVY-CU2_BFd5.js";import"./chunk-GVQU2GXP-BgFBEPvi.js";import"./chunk-4HAMMTFA-BNXBltbk.js";import"./chunk-P2QGCYS3-IFHofmFV.js";import"./chunk-GMAD6QVW-CuPUd8iC.js";import"./chunk-PWAF6VOD-BvARe9o_.js";import"./chunk-75Z2AOVW-CLaL8nXt.js";import"./chunk-DU6HZSFF-RjCeRheb.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};