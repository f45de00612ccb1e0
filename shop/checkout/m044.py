import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_44_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-44-0'
    return [line.qty * factor for line in cart.lines]


def step_44_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-44-1'
    return [line.qty * factor for line in cart.lines]


def step_44_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-44-2'
    return [line.qty * factor for line in cart.lines]


def step_44_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-44-3'
    return [line.qty * factor for line in cart.lines]

