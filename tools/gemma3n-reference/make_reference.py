"""Reference logits for a Gemma 3n text model with more KV-sharing layers and prompts past the window.

Made models/src/test/resources/panamax/models/gemma3n-shared (2026-12-02, on the lent GPU machine,
transformers 5.17.0, torch 2.11.0; the reference itself runs on the CPU in float32):

    python3 tools/gemma3n-reference/make_reference.py OUT_DIR

writes OUT_DIR/{config.json, generation_config.json, model.safetensors, reference.safetensors} in the
format of ../shared/fixtures (README there): random weights saved in bfloat16, then the model loaded
back with from_pretrained(dtype=float32, eager attention) as a user loads it, so RoPE and the
embedding scales are exact float32, and reference.json. 10 layers (sliding window 4, full every
third), the last 4 reading the KV of layers 4 (sliding) and 5 (full); 3 AltUp streams without
output scaling, LAuReL rank 4, per-layer inputs of width 8, per-layer MLP widths, sparsity on the
first three layers; 40-token prompts, 24 greedy steps, left-padded rows of 40, 29 and 7 tokens.
"""
import json,math,sys,torch,transformers
from pathlib import Path
from safetensors.torch import save_file
from transformers import Gemma3nForCausalLM as M, Gemma3nTextConfig as C
T,N,BL=40,24,[40,29,7]
s,f="sliding_attention","full_attention"
LT=[s,s,f,s,s,f,s,s,f,s]
def cfg():
 return C(vocab_size=512,vocab_size_per_layer_input=512,hidden_size=64,hidden_size_per_layer_input=8,intermediate_size=[96,128]*5,num_hidden_layers=10,num_attention_heads=4,num_key_value_heads=1,head_dim=16,layer_types=LT,sliding_window=4,num_kv_shared_layers=4,altup_num_inputs=3,altup_active_idx=0,altup_correct_scale=False,laurel_rank=4,activation_sparsity_pattern=[0.95,0.9,0.8]+[0.0]*7,final_logit_softcapping=30.0,rope_parameters={f:{"rope_type":"default","rope_theta":1e6},s:{"rope_type":"default","rope_theta":1e4}},max_position_embeddings=512,pad_token_id=0,eos_token_id=2,bos_token_id=None,tie_word_embeddings=True,dtype="bfloat16")
def rnd(m,g):
 with torch.no_grad():
  for n,p in m.named_parameters():
   r=torch.randn(p.shape,generator=g)
   if p.ndim==1: p.copy_(1+0.1*r)
   elif "_coefs" in n: p.copy_(0.5*r)
   elif "embed_tokens_per_layer" in n: p.copy_(0.1*r)
   else: p.copy_(r/math.sqrt(p.shape[1]))
def run(m,ids,mask):
 pos=(mask.cumsum(-1)-1).clamp(min=0)
 r=m(input_ids=ids,attention_mask=mask,position_ids=pos,use_cache=True)
 first,past,pos=r.logits.float(),r.past_key_values,pos[:,-1:]
 nx,gr,st=first[:,-1].argmax(-1),[],[]
 for _ in range(N):
  gr.append(nx);mask=torch.cat([mask,torch.ones_like(mask[:,:1])],1);pos=pos+1
  r=m(input_ids=nx[:,None],attention_mask=mask,position_ids=pos,past_key_values=past,use_cache=True)
  past=r.past_key_values;st.append(r.logits[:,-1].float());nx=st[-1].argmax(-1)
 return first,torch.stack(gr,1).int(),torch.stack(st,1)
o=Path(sys.argv[1]);o.mkdir(parents=True,exist_ok=True)
torch.manual_seed(7);g=torch.Generator().manual_seed(7)
m=M(cfg());rnd(m,g);m.to(torch.bfloat16).save_pretrained(o)
m=M.from_pretrained(o,dtype=torch.float32,attn_implementation="eager").eval()
one=torch.randint(3,512,(1,T),generator=g)
ids=torch.zeros(3,T,dtype=torch.long);mask=torch.zeros_like(ids)
for b,n in enumerate(BL):
 ids[b,T-n:]=torch.randint(3,512,(n,),generator=g);mask[b,T-n:]=1
R={}
with torch.no_grad():
 l,gr,st=run(m,one,torch.ones_like(one));R.update({"single.ids":one.int(),"single.logits":l,"single.greedy":gr,"single.step_logits":st})
 l,gr,st=run(m,ids,mask);R.update({"batch.ids":ids.int(),"batch.mask":mask.int(),"batch.last_logits":l[:,-1],"batch.greedy":gr,"batch.step_logits":st})
save_file({k:v.contiguous() for k,v in R.items()},str(o/"reference.safetensors"))
meta={"architecture":"gemma3n_text","seed":7,"hf_buffers":"float32","prompt_tokens":T,"decode_steps":N,"batch_lengths":BL,"pad_id":0,"reference":f"transformers {transformers.__version__}, torch {torch.__version__}, float32, eager attention, CPU","made_by":"tools/gemma3n-reference/make_reference.py"}
(o/"reference.json").write_text(json.dumps(meta,indent=1)+"\n")
print(json.dumps(meta),"std %.3f"%R["single.logits"].std().item())
